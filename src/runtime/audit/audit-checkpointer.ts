import type { Logger } from 'pino';
import {
  type AuditCheckpoint,
  type AuditSigningKey,
  signAuditCheckpoint,
} from '../../core/audit-checkpoint.js';
import type { Cancel, Clock } from '../../core/clock.js';
import type { HoldpointStore } from '../../store/store.js';

/** Where signed checkpoints go: outside the store (a file, a receiver). */
export interface CheckpointSink {
  /** Named in logs: `file /var/log/holdpoint/checkpoints.ndjson`. */
  readonly name: string;
  /** Keeps `checkpoint` for good, or throws: its heads are then written with the next one. */
  write(checkpoint: AuditCheckpoint): Promise<void>;
}

/** What an AuditCheckpointer signs with, where it writes and how often. */
export interface AuditCheckpointerOptions {
  store: Pick<HoldpointStore, 'observeCommits'>;
  key: AuditSigningKey;
  sinks: readonly CheckpointSink[];
  /** How often changed heads are written. */
  everySeconds: number;
  clock: Clock;
  logger: Logger;
}

/**
 * Checkpoints the audit chains outside the store: it learns each session's new audit
 * head from the commits this process stores, keeps only the latest per session, and
 * every `everySeconds` (and at `close`) writes one checkpoint of the heads that changed,
 * signed with the server's key, to each sink. Nothing changed, nothing written. A sink
 * that fails keeps its heads for the next flush (a newer head of the same session
 * replaces its older one: the newer line's hash vouches for every line before it).
 */
export class AuditCheckpointer {
  /** Per sink, by session: the latest head not yet written to it. */
  private readonly pending: Map<string, string>[];
  private readonly stopObserving: () => void;
  private stopTimer: Cancel | undefined;
  private flushing: Promise<void> = Promise.resolve();

  constructor(private readonly options: AuditCheckpointerOptions) {
    this.pending = options.sinks.map(() => new Map());
    this.stopObserving = options.store.observeCommits((before, writes) => {
      const head = writes.meta.auditHead;
      if (head === undefined || head === before.meta.auditHead) return;
      const { sessionId } = writes.meta;
      for (const pending of this.pending) {
        // Deleted first, so the heads stay in the order sessions last changed.
        pending.delete(sessionId);
        pending.set(sessionId, head);
      }
    });
  }

  /** Starts writing every `everySeconds`. */
  start(): void {
    this.stopTimer ??= this.options.clock.every(this.options.everySeconds * 1000, () => {
      void this.flush();
    });
  }

  /**
   * Writes a checkpoint of the heads that changed since the last one each sink kept,
   * after any flush under way; resolves when written (a sink's failure is logged).
   */
  flush(): Promise<void> {
    this.flushing = this.flushing.then(() =>
      Promise.all(this.options.sinks.map((sink, index) => this.flushTo(sink, index))).then(
        () => undefined,
      ),
    );
    return this.flushing;
  }

  private async flushTo(sink: CheckpointSink, index: number): Promise<void> {
    const pending = this.pending[index];
    if (!pending || pending.size === 0) return;
    const taken = new Map(pending);
    pending.clear();
    const heads = [...taken].map(([session_id, hash]) => ({ session_id, hash }));
    const checkpoint = signAuditCheckpoint(heads, this.options.clock.now(), this.options.key);
    try {
      await sink.write(checkpoint);
    } catch (error) {
      for (const [sessionId, hash] of taken) {
        if (!pending.has(sessionId)) pending.set(sessionId, hash);
      }
      this.options.logger.warn(
        { sink: sink.name, heads: heads.length, err: (error as Error).message },
        `audit checkpoint not written to ${sink.name}: ${(error as Error).message}; its heads go with the next`,
      );
    }
  }

  /** Stops watching and the timer, then writes what changed since the last flush. */
  async close(): Promise<void> {
    this.stopTimer?.();
    this.stopObserving();
    await this.flush();
  }
}
