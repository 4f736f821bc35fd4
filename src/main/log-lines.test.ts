import { describe, expect, it } from 'vitest';
import { readableLine } from './log-lines.js';

describe('readableLine', () => {
  const at = Date.UTC(2026, 11, 7, 18, 9, 55);

  it('shows the time, the level, the message, then the fields', () => {
    const json = JSON.stringify({
      level: 30,
      time: at,
      pid: 1,
      hostname: 'h',
      service: 'holdpoint',
      app: 'payments',
      approvals: [{ tool: 'pay' }],
      msg: 'run paused in payments',
    });
    expect(readableLine(json)).toBe(
      '18:09:55 INFO  run paused in payments app=payments approvals=[{"tool":"pay"}]\n',
    );
  });

  it('puts an error’s stack on the lines below, quotes text with spaces', () => {
    const json = JSON.stringify({
      level: 50,
      time: at,
      msg: 'unexpected error',
      where: 'the sweeper',
      err: { message: 'boom', stack: 'Error: boom\n    at x' },
    });
    expect(readableLine(json)).toBe(
      '18:09:55 ERROR unexpected error where="the sweeper"\nError: boom\n    at x\n',
    );
  });

  it('passes a line that is not JSON on as it is', () => {
    expect(readableLine('plain text')).toBe('plain text\n');
  });
});
