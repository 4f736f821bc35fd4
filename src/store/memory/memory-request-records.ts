import type { RequestRecord, RequestRecords } from '../request-records.js';

/** At most this many request records; the oldest make room. */
const MAX_RECORDS = 10_000;

/** Request records of one process, each forgotten once it is older than it is kept. */
export class MemoryRequestRecords implements RequestRecords {
  /** In order of last write, oldest first. */
  private readonly records = new Map<string, { record: RequestRecord; expiresAt: number }>();

  private live(key: string): RequestRecord | undefined {
    const entry = this.records.get(key);
    if (entry && entry.expiresAt <= Date.now()) this.records.delete(key);
    return this.records.get(key)?.record;
  }

  private put(key: string, record: RequestRecord, keepMs: number): void {
    this.records.delete(key);
    this.records.set(key, { record: structuredClone(record), expiresAt: Date.now() + keepMs });
    // Expired ones and, past the bound, the oldest go.
    for (const [oldest, entry] of this.records) {
      if (entry.expiresAt > Date.now() && this.records.size <= MAX_RECORDS) break;
      this.records.delete(oldest);
    }
  }

  async reserve(key: string, record: RequestRecord, keepMs: number) {
    const held = this.live(key);
    if (held) return structuredClone(held);
    this.put(key, record, keepMs);
    return undefined;
  }

  async get(key: string) {
    return structuredClone(this.live(key));
  }

  async finish(key: string, record: RequestRecord, keepMs: number) {
    this.put(key, record, keepMs);
  }

  async release(key: string) {
    this.records.delete(key);
  }
}
