import { mkdtempSync, rmSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { HoldpointError } from '../../core/errors.js';
import { DataDirLock } from './data-dir-lock.js';

const dir = mkdtempSync(join(tmpdir(), 'hp-lock-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('DataDirLock', () => {
  it('is held by one taker at a time, naming the holder to the next, until released', () => {
    const dataDir = join(dir, 'data');
    const lock = DataDirLock.take(dataDir);
    let refusal: unknown;
    try {
      DataDirLock.take(dataDir);
    } catch (error) {
      refusal = error;
    }
    expect(refusal).toBeInstanceOf(HoldpointError);
    expect((refusal as HoldpointError).code).toBe('STORE_IN_USE');
    expect((refusal as HoldpointError).message).toContain(
      `The SQLite data directory ${dataDir} is in use by another Holdpoint process (pid ${process.pid} on ${hostname()}, since `,
    );
    lock.release();
    DataDirLock.take(dataDir).release();
  });
});
