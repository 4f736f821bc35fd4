import { createEvent, type Event } from '@google/adk';
import { describe, expect, it } from 'vitest';
import { AWAITING_CONFIRMATION, CONFIRMATION_CALL } from '../../core/confirmation-request.js';
import { encodeRecord } from '../record-codec.js';
import { newPause, newRun } from '../store-fixtures.test-support.js';
import {
  COMPACT_VERSION,
  decodeAudit,
  decodeEvent,
  decodePause,
  encodeAudit,
  encodeEvent,
  encodePause,
} from './redis-record-codec.js';

const SESSION = 'session-1';
const context = { sessionId: SESSION, app: 'image-studio', userId: 'ann' };
const plain = (value: unknown) => JSON.parse(JSON.stringify(value));

/** A confirmation request as SegmentSessions stores it: with the call's awaiting response. */
function confirmationRequest(): Event {
  const original = {
    id: 'adk-7d778d28-af94-48c9-b2fe-6c2d914e1889',
    name: 'request_image_generation',
    args: { num_images: 10, note: '~tilde', ref: 'inv-922b2159-f5ea-4976-8201-a9e14fa5b393' },
  };
  const toolConfirmation = { hint: 'Large request', confirmed: false };
  return createEvent({
    invocationId: 'inv-922b2159-f5ea-4976-8201-a9e14fa5b393',
    author: 'image_studio',
    content: {
      role: 'user',
      parts: [
        {
          functionCall: {
            id: 'adk-974b7a0d-b651-4f5c-b876-87c2060e06ac',
            name: CONFIRMATION_CALL,
            args: { originalFunctionCall: original, toolConfirmation },
          },
        },
        {
          functionResponse: {
            id: original.id,
            name: original.name,
            response: { ...AWAITING_CONFIRMATION },
          },
        },
      ],
    },
    actions: { requestedToolConfirmations: { [original.id]: toolConfirmation } },
    longRunningToolIds: ['adk-974b7a0d-b651-4f5c-b876-87c2060e06ac'],
  });
}

describe('the Redis record codec', () => {
  it('keeps a confirmation request once: what ADK and Holdpoint repeat of its calls is read back', () => {
    const event = confirmationRequest();
    const stored = encodeEvent(event);
    expect(JSON.parse(stored).v).toBe(COMPACT_VERSION);
    expect(stored.length).toBeLessThan(encodeRecord('event', event).length * 0.6);
    expect(stored).not.toContain(AWAITING_CONFIRMATION.error);
    expect(decodeEvent(stored, SESSION)).toEqual(plain(event));
  });

  it('stores whole (v1) an event the compact form would not read back exactly', () => {
    // Without stateDelta, which the compact form would give back as {}.
    const { stateDelta: _dropped, ...actions } = confirmationRequest().actions;
    const event = { ...confirmationRequest(), actions } as unknown as Event;
    const stored = encodeEvent(event);
    expect(JSON.parse(stored).v).toBe(1);
    expect(decodeEvent(stored, SESSION)).toEqual(plain(event));
  });

  it('reads back strings that look packed, ids and hashes exactly', () => {
    const run = newRun(SESSION, 'ann', 1000);
    const pause = newPause(run, 2, 1000);
    pause.approvals[0] = {
      ...(pause.approvals[0] as (typeof pause.approvals)[0]),
      hint: '~#not a hash',
      args: { a: '~~', b: 'sha256:00', c: `adk-${'0'.repeat(8)}-0000-0000-0000-${'0'.repeat(12)}` },
    };
    const stored = encodePause(pause, { ...context, sessionId: run.sessionId });
    expect(JSON.parse(stored).v).toBe(COMPACT_VERSION);
    expect(
      decodePause(stored, { ...context, sessionId: run.sessionId, pauseId: pause.pauseId }),
    ).toEqual(plain(pause));
    const line = {
      at: 1,
      action: 'started' as const,
      sessionId: SESSION,
      invocationId: run.invocationId,
      actor: 'ann',
      prevHash: `sha256:${'0'.repeat(64)}`,
      hash: `sha256:${'ab'.repeat(32)}`,
    };
    const audit = encodeAudit(line, SESSION);
    expect(audit).not.toContain(SESSION);
    expect(decodeAudit(audit, SESSION)).toEqual(line);
  });

  it('refuses a record of a schema it does not know, naming it', () => {
    expect(() => decodeEvent('{"v":3,"e":{}}', SESSION)).toThrow(/schema v3/);
  });
});
