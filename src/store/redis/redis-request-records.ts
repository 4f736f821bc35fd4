import { createHash } from 'node:crypto';
import { decodeRequestRecord, encodeRequestRecord } from '../request-record-codec.js';
import type { RequestRecord, RequestRecords } from '../request-records.js';
import type { RedisConnection, RedisScript } from './redis-connection.js';

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

  reserve(key: string, record: RequestRecord, keepMs: number) {
    return this.conn.run(async () => {
      const json = encodeRequestRecord(record);
      const held = (await this.reserveScript([this.key(key)], [json, keepMs])) as string | null;
      return decodeRequestRecord(held);
    });
  }

  get(key: string) {
    return this.conn.run(async (redis) => decodeRequestRecord(await redis.get(this.key(key))));
  }

  async finish(key: string, record: RequestRecord, keepMs: number) {
    await this.conn.run((redis) =>
      redis.set(this.key(key), encodeRequestRecord(record), 'PX', keepMs),
    );
  }

  async release(key: string) {
    await this.conn.run((redis) => redis.del(this.key(key)));
  }
}
