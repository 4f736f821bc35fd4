/** The first answer to a request made with an idempotency key. */
export type RequestAnswer =
  | { ok: unknown }
  | { error: { code: string; message: string; details?: Record<string, unknown> } };

/**
 * What is kept of a request made with an idempotency key: what the request was (its
 * fingerprint), and its answer once it has one. A `pending` record holds the key for
 * the request that reserved it until `until`.
 */
export interface RequestRecord {
  fingerprint: string;
  state: 'pending' | 'done';
  until: number;
  answer?: RequestAnswer;
}

/**
 * Requests made with an idempotency key, shared by every instance: the first request
 * reserves the key, later ones with the same key read its answer instead of acting again.
 */
export interface RequestRecords {
  /** Reserves `key` with `record` unless it is taken; returns the record that holds it then. */
  reserve(key: string, record: RequestRecord, keepMs: number): Promise<RequestRecord | undefined>;
  /** The record of `key`, if any. */
  get(key: string): Promise<RequestRecord | undefined>;
  /** Stores the answer of the request that reserved `key`. */
  finish(key: string, record: RequestRecord, keepMs: number): Promise<void>;
  /** Frees `key` (its request changed nothing, so a retry may act). */
  release(key: string): Promise<void>;
}
