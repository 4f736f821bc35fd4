import { createHash } from 'node:crypto';
import { z } from 'zod';
import { HoldpointError } from '../../core/errors.js';
import type { RequestRecord, RequestRecords } from '../request-records.js';
import type { RedisConnection, RedisScript } from './redis-connection.js';

const requestRecord = z.object({
  v: z.literal(1),
  fingerprint: z.string(),
  state: z.enum(['pending', 'done']),
  until: z.number(),
  answer: z
    .union([
      z.object({ ok: z.unknown() }),
      z.object({
        error: z.object({
          code: z.string(),
          message: z.string(),
          details: z.record(z.string(), z.unknown()).optional(),
        }),
      }),
    ])
    .optional(),
});

/** Request records in Redis, one key each (hashed), kept as long as asked. */
export class RedisRequestRecords implements RequestRecords {
  private readonly reserveScript: RedisScript;

  constructor(
    private readonly conn: RedisConnection,
    private readonly prefix: string,
  ) {
    this.reserveScript = conn.script('reserve-request');
  }

  private key(key: string): string {
    return `${this.prefix}:request:${createHash('sha256').update(key).digest('hex')}`;
  }

  private decode(json: string | null): RequestRecord | undefined {
    if (json === null) return undefined;
    const parsed = requestRecord.safeParse(JSON.parse(json));
    if (!parsed.success) {
      throw new HoldpointError(
        'RECORD_UNREADABLE',
        'The stored answer of this Idempotency-Key cannot be read.',
        { record: 'request' },
      );
    }
    const { v: _version, ...record } = parsed.data;
    return record as RequestRecord;
  }

  reserve(key: string, record: RequestRecord, keepMs: number) {
    return this.conn.run(async () => {
      const json = JSON.stringify({ v: 1, ...record });
      const held = (await this.reserveScript([this.key(key)], [json, keepMs])) as string | null;
      return this.decode(held);
    });
  }

  get(key: string) {
    return this.conn.run(async (redis) => this.decode(await redis.get(this.key(key))));
  }

  async finish(key: string, record: RequestRecord, keepMs: number) {
    await this.conn.run((redis) =>
      redis.set(this.key(key), JSON.stringify({ v: 1, ...record }), 'PX', keepMs),
    );
  }

  async release(key: string) {
    await this.conn.run((redis) => redis.del(this.key(key)));
  }
}
