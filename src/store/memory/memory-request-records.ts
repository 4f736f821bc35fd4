import type { RequestRecord, RequestRecords } from '../request-records.js';

/** Request records of one process, each forgotten once it is older than it is kept. */
export class MemoryRequestRecords implements RequestRecords {
  private readonly records = new Map<string, { record: RequestRecord; expiresAt: number }>();

  private live(key: string): RequestRecord | undefined {
    const entry = this.records.get(key);
    if (entry && entry.expiresAt <= Date.now()) this.records.delete(key);
    return this.records.get(key)?.record;
  }

  async claim(key: string, record: RequestRecord, keepMs: number) {
    const held = this.live(key);
    if (held) return structuredClone(held);
    this.records.set(key, { record: structuredClone(record), expiresAt: Date.now() + keepMs });
    return undefined;
  }

  async get(key: string) {
    return structuredClone(this.live(key));
  }

  async finish(key: string, record: RequestRecord, keepMs: number) {
    this.records.set(key, { record: structuredClone(record), expiresAt: Date.now() + keepMs });
  }

  async release(key: string) {
    this.records.delete(key);
  }
}
