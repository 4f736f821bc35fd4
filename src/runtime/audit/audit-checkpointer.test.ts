import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import {
  type AuditCheckpoint,
  auditPublicKeyFrom,
  auditSigningKeyFrom,
  checkAuditCheckpoint,
  newAuditKeyPair,
} from '../../core/audit-checkpoint.js';
import { ManualClock } from '../../core/manual-clock.test-support.js';
import { MemoryStore } from '../../store/memory/memory-store.js';
import type { SessionSnapshot } from '../../store/store.js';
import { AuditCheckpointer, type CheckpointSink } from './audit-checkpointer.js';

const pair = newAuditKeyPair();
const key = auditSigningKeyFrom(pair.privatePem);
const publicKey = auditPublicKeyFrom(pair.publicPem);

/** A sink that keeps what it is given, failing while `failing` is set. */
class KeptSink implements CheckpointSink {
  readonly name = 'kept';
  readonly written: AuditCheckpoint[] = [];
  failing = false;
  async write(checkpoint: AuditCheckpoint) {
    if (this.failing) throw new Error('receiver down');
    this.written.push(checkpoint);
  }
}

/** A store, a checkpointer on it every 60 s, and a way to write an audit line to a session. */
async function setup(sinks: CheckpointSink[]) {
  const clock = new ManualClock();
  const store = new MemoryStore({ sessionTtlSeconds: 600 });
  const checkpointer = new AuditCheckpointer({
    store,
    key,
    sinks,
    everySeconds: 60,
    clock,
    logger: pino({ level: 'silent' }),
  });
  checkpointer.start();
  const created = new Set<string>();
  /** Appends a line to `sessionId`'s log; answers its new head. */
  const write = async (sessionId: string, writeAudit = true): Promise<string> => {
    if (!created.has(sessionId)) {
      created.add(sessionId);
      await store.createSession({ sessionId, app: 'app', userId: 'ann', createdAt: clock.now() });
    }
    await store.apply(
      sessionId,
      (snapshot: SessionSnapshot) => ({
        writes: {
          meta: { ...snapshot.meta, updatedAt: clock.now() },
          audit: writeAudit
            ? [{ at: clock.now(), action: 'started', sessionId, invocationId: 'i', actor: 'ann' }]
            : [],
        },
      }),
      [],
    );
    return (await store.getSnapshot(sessionId))?.meta.auditHead ?? '';
  };
  /** Lets the minute pass and waits for the flush it started. */
  const tick = async () => {
    clock.advance(60_000);
    await checkpointer.flush();
  };
  return { clock, store, checkpointer, write, tick };
}

describe('AuditCheckpointer', () => {
  it('writes nothing while idle, and one signed record per flush of the heads that changed', async () => {
    const sink = new KeptSink();
    const { write, tick, checkpointer, clock } = await setup([sink]);
    await tick();
    expect(sink.written).toEqual([]);

    await write('s-1');
    const a2 = await write('s-1');
    const b1 = await write('s-2');
    // A commit without audit lines leaves the head where it was: nothing new.
    await write('s-2', false);
    await tick();
    expect(sink.written).toHaveLength(1);
    expect(sink.written[0]).toMatchObject({
      v: 1,
      at: new Date(clock.now()).toISOString(),
      key_id: pair.keyId,
      heads: [
        { session_id: 's-1', hash: a2 },
        { session_id: 's-2', hash: b1 },
      ],
    });
    expect(checkAuditCheckpoint(sink.written[0], [publicKey]).ok).toBe(true);

    await tick();
    await write('s-2', false);
    await tick();
    expect(sink.written).toHaveLength(1);

    const b2 = await write('s-2');
    await checkpointer.close();
    expect(sink.written.map((c) => c.heads)).toEqual([
      [
        { session_id: 's-1', hash: a2 },
        { session_id: 's-2', hash: b1 },
      ],
      [{ session_id: 's-2', hash: b2 }],
    ]);
    // Closed: no more watching, no more timer.
    await write('s-3');
    await tick();
    expect(sink.written).toHaveLength(2);
  });

  it('keeps the heads a sink failed to take for its next flush, the newest per session; other sinks go on', async () => {
    const down = new KeptSink();
    const up = new KeptSink();
    const { write, tick } = await setup([down, up]);
    down.failing = true;
    await write('s-1');
    const b1 = await write('s-2');
    await tick();
    expect(down.written).toEqual([]);
    expect(up.written).toHaveLength(1);

    const a2 = await write('s-1');
    down.failing = false;
    await tick();
    expect(down.written.map((c) => c.heads)).toEqual([
      [
        { session_id: 's-2', hash: b1 },
        { session_id: 's-1', hash: a2 },
      ],
    ]);
    expect(up.written.map((c) => c.heads).at(-1)).toEqual([{ session_id: 's-1', hash: a2 }]);
  });
});
