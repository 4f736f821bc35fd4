import { isDeepStrictEqual } from 'node:util';
import type { Event } from '@google/adk';
import { DEFAULT_APPROVERS } from '../../core/approvers.js';
import { AWAITING_CONFIRMATION, CONFIRMATION_CALL } from '../../core/confirmation-request.js';
import type { AuditEntry, Pause, RunRecord, SessionMeta } from '../../core/types.js';
import {
  checkRecord,
  decodeRecord,
  encodeRecord,
  RECORD_VERSION,
  type RecordKind,
  recordUnreadable,
} from '../record-codec.js';

/**
 * Redis keeps its records compact (`v` 2): what the session record or the key already
 * says is left out of the records in it, and what a record repeats of itself is stored
 * once. Each is read back whole, and checked as every record is (checkRecord); a record
 * of `v` 1 (an earlier release's, or one the compact form cannot hold exactly) is read as
 * record-codec.ts reads it.
 */
export const COMPACT_VERSION = 2;

/** What a session's keys and record say of every record in them. */
export interface RecordContext {
  sessionId: string;
  app: string;
  userId: string;
}

type Json = Record<string, unknown>;

function parse(kind: RecordKind, json: string, sessionId: string): Json {
  let raw: unknown;
  try {
    raw = JSON.parse(json);
  } catch {
    throw recordUnreadable(kind, sessionId, 'it is not JSON');
  }
  if (raw === null || typeof raw !== 'object') {
    throw recordUnreadable(kind, sessionId, 'it is not an object');
  }
  return raw as Json;
}

/** The record's body, or undefined when it is of `v` 1 (read it with decodeRecord). */
function compactBody(kind: RecordKind, raw: Json, sessionId: string): Json | undefined {
  if (raw.v === RECORD_VERSION) return undefined;
  if (raw.v !== COMPACT_VERSION) {
    throw recordUnreadable(
      kind,
      sessionId,
      typeof raw.v === 'number'
        ? `it has schema v${raw.v} and this release reads v${RECORD_VERSION} and v${COMPACT_VERSION}`
        : 'it carries no schema version',
    );
  }
  const { v: _version, ...body } = raw;
  return body;
}

/** An id with a UUID (`inv-…`, `adk-…`, or bare): its prefix and the UUID's 32 hex digits. */
const UUID_ID =
  /^([A-Za-z]*-)?([0-9a-f]{8})-([0-9a-f]{4})-([0-9a-f]{4})-([0-9a-f]{4})-([0-9a-f]{12})$/;
const SHA256 = /^sha256:([0-9a-f]{64})$/;
/** A packed UUID's length: its 16 bytes in base64url. */
const PACKED_UUID = 22;

/**
 * A string as compact records keep it: an id with a UUID as `~` + its prefix + the UUID
 * in base64url, a SHA-256 hash as `~#` + its base64url, a string that starts with `~`
 * behind one more; anything else as it is. unpackString reads each back exactly.
 */
function packString(text: string): string {
  const id = UUID_ID.exec(text);
  if (id) return `~${id[1] ?? ''}${Buffer.from(id.slice(2).join(''), 'hex').toString('base64url')}`;
  const hash = SHA256.exec(text);
  if (hash) return `~#${Buffer.from(hash[1] as string, 'hex').toString('base64url')}`;
  return text.startsWith('~') ? `~${text}` : text;
}

function unpackString(text: string): string {
  if (!text.startsWith('~')) return text;
  if (text.startsWith('~~')) return text.slice(1);
  if (text.startsWith('~#')) {
    return `sha256:${Buffer.from(text.slice(2), 'base64url').toString('hex')}`;
  }
  const hex = Buffer.from(text.slice(-PACKED_UUID), 'base64url').toString('hex');
  const uuid = `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
  return `${text.slice(1, -PACKED_UUID)}${uuid}`;
}

/** `value` (plain JSON) with every string value, never a key, mapped by `map`. */
function mapStrings(value: unknown, map: (text: string) => string): unknown {
  if (typeof value === 'string') return map(value);
  if (Array.isArray(value)) return value.map((item) => mapStrings(item, map));
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value).map(([key, item]) => [key, mapStrings(item, map)]),
    );
  }
  return value;
}

const packStrings = (body: Json) => mapStrings(body, packString) as Json;
const unpackStrings = (body: Json) => mapStrings(body, unpackString) as Json;

/** `record` without the fields whose values `known` holds (those are read back from it). */
function without(record: Json, known: Json): Json {
  const out: Json = {};
  for (const [key, value] of Object.entries(record)) {
    if (value !== undefined && !(key in known && known[key] === value)) out[key] = value;
  }
  return out;
}

function compact(body: Json): string {
  return JSON.stringify({ v: COMPACT_VERSION, ...packStrings(body) });
}

/** The record as plain JSON: what JSON keeps of it (no undefined fields). */
function plainJson(record: unknown): Json {
  return JSON.parse(JSON.stringify(record)) as Json;
}

/** The meta record, without what the session record says (ids, app, user). */
export function encodeMeta(meta: SessionMeta): string {
  const { sessionId: _s, app: _a, userId: _u, pauseId: _p, invocationId: _i, ...rest } = meta;
  return compact(rest);
}

/** The meta record of `context`'s session, whose latest pause and run the record names. */
export function decodeMeta(
  json: string,
  context: RecordContext & { pauseId: string; invocationId: string },
): SessionMeta {
  const { sessionId, app, userId, pauseId, invocationId } = context;
  const raw = parse('meta', json, sessionId);
  const body = compactBody('meta', raw, sessionId);
  if (!body) return decodeRecord('meta', json, sessionId);
  const ids = { ...(pauseId ? { pauseId } : {}), ...(invocationId ? { invocationId } : {}) };
  return checkRecord('meta', { ...unpackStrings(body), sessionId, app, userId, ...ids }, sessionId);
}

/**
 * An approval as a pause holds it, without what the pause says (its times) and with the
 * default approvers as 0.
 */
function compactApproval(approval: Json, pause: Json): Json {
  const out = without(approval, { createdAt: pause.createdAt, expiresAt: pause.expiresAt });
  if (isDeepStrictEqual(approval.approvers, DEFAULT_APPROVERS)) out.approvers = 0;
  return out;
}

function expandApproval(approval: Json, pause: Json): Json {
  const out: Json = { createdAt: pause.createdAt, expiresAt: pause.expiresAt, ...approval };
  if (approval.approvers === 0) out.approvers = structuredClone(DEFAULT_APPROVERS);
  return out;
}

function expandPause(body: Json, context: Json): Json {
  const pause: Json = { ...context, ...body };
  if (Array.isArray(body.approvals)) {
    pause.approvals = (body.approvals as Json[]).map((approval) => expandApproval(approval, pause));
  }
  return pause;
}

/**
 * A pause record, without what its key says (its session, app, user and id) and what its
 * approvals repeat of it; whole (`v` 1) when that would not read back exactly.
 */
export function encodePause(pause: Pause, context: RecordContext): string {
  const plain = plainJson(pause);
  const known = { ...context, pauseId: pause.pauseId };
  const body = without(plain, known);
  body.approvals = (plain.approvals as Json[]).map((approval) => compactApproval(approval, plain));
  const json = compact(body);
  const back = expandPause(
    unpackStrings(compactBody('pause', parse('pause', json, ''), '') ?? {}),
    known,
  );
  return isDeepStrictEqual(back, plain) ? json : encodeRecord('pause', pause);
}

/** The pause `pauseId` of `context`'s session. */
export function decodePause(json: string, context: RecordContext & { pauseId: string }): Pause {
  const raw = parse('pause', json, context.sessionId);
  const body = compactBody('pause', raw, context.sessionId);
  if (!body) return decodeRecord('pause', json, context.sessionId);
  return checkRecord('pause', expandPause(unpackStrings(body), { ...context }), context.sessionId);
}

/** A run record, without what its key says (its session, app, user and id). */
export function encodeRun(run: RunRecord, context: RecordContext): string {
  return compact(without({ ...run }, { ...context, invocationId: run.invocationId }));
}

/** The run `invocationId` of `context`'s session. */
export function decodeRun(
  json: string,
  context: RecordContext & { invocationId: string },
): RunRecord {
  const raw = parse('run', json, context.sessionId);
  const body = compactBody('run', raw, context.sessionId);
  if (!body) return decodeRecord('run', json, context.sessionId);
  return checkRecord('run', { ...context, ...unpackStrings(body) }, context.sessionId);
}

/** An audit line, without its session. */
export function encodeAudit(line: AuditEntry, sessionId: string): string {
  return compact(without({ ...line }, { sessionId }));
}

/** An audit line of `sessionId`. */
export function decodeAudit(json: string, sessionId: string): AuditEntry {
  const raw = parse('audit', json, sessionId);
  const body = compactBody('audit', raw, sessionId);
  if (!body) return decodeRecord('audit', json, sessionId);
  return checkRecord('audit', { sessionId, ...unpackStrings(body) }, sessionId);
}

const EMPTY_ACTIONS = [
  'stateDelta',
  'artifactDelta',
  'requestedAuthConfigs',
  'requestedToolConfirmations',
];

interface ConfirmationPart {
  functionCall: {
    id: string;
    name: string;
    args: { originalFunctionCall: { id: string; name: string }; toolConfirmation?: unknown };
  };
}

/** The event's confirmation request calls (ADK's `adk_request_confirmation`). */
function confirmationCalls(event: Json): ConfirmationPart['functionCall'][] {
  const parts = ((event.content as Json | undefined)?.parts ?? []) as Json[];
  return parts.flatMap((part) => {
    const call = (part as Partial<ConfirmationPart>).functionCall;
    const original = call?.args?.originalFunctionCall;
    return call?.name === CONFIRMATION_CALL && original?.id && original.name ? [call] : [];
  });
}

/** The responses Holdpoint adds to a confirmation request event (see SegmentSessions). */
function awaitingResponses(event: Json, requested: Json): Json[] {
  return confirmationCalls(event)
    .filter((call) => call.args.originalFunctionCall.id in requested)
    .map(({ args: { originalFunctionCall: original } }) => ({
      functionResponse: { id: original.id, name: original.name, response: AWAITING_CONFIRMATION },
    }));
}

/** What a confirmation request asks of each original call, as ADK repeats it in `actions`. */
function requestedConfirmations(event: Json): Json {
  return Object.fromEntries(
    confirmationCalls(event).map((call) => [
      call.args.originalFunctionCall.id,
      call.args.toolConfirmation,
    ]),
  );
}

/**
 * An ADK event with what it repeats of itself left out: empty `actions` maps and
 * `longRunningToolIds`, and in a confirmation request what ADK repeats of its calls
 * (`requestedToolConfirmations`, the calls' ids as long-running) and the responses
 * Holdpoint adds to it. `derived` names what expandEvent puts back: `t` the requested
 * confirmations, `a` the added responses, `l` the long-running ids.
 */
function compactEvent(event: Json): { e: Json; d?: string } {
  const e: Json = { ...event };
  let derived = '';
  const actions: Json = { ...((e.actions as Json | undefined) ?? {}) };
  const requested = (actions.requestedToolConfirmations ?? {}) as Json;
  const responses = awaitingResponses(e, requested);
  const content = e.content as Json | undefined;
  const parts = (content?.parts ?? []) as Json[];
  if (responses.length > 0 && isDeepStrictEqual(parts.slice(-responses.length), responses)) {
    e.content = { ...content, parts: parts.slice(0, -responses.length) };
    derived += 'a';
  }
  if (
    Object.keys(requested).length > 0 &&
    isDeepStrictEqual(requested, requestedConfirmations(e))
  ) {
    delete actions.requestedToolConfirmations;
    derived += 't';
  }
  for (const name of EMPTY_ACTIONS) {
    if (isDeepStrictEqual(actions[name], {})) delete actions[name];
  }
  if (Object.keys(actions).length === 0) delete e.actions;
  else e.actions = actions;
  const calls = confirmationCalls(e).map((call) => call.id);
  if (isDeepStrictEqual(e.longRunningToolIds, [])) delete e.longRunningToolIds;
  else if (calls.length > 0 && isDeepStrictEqual(e.longRunningToolIds, calls)) {
    delete e.longRunningToolIds;
    derived += 'l';
  }
  return derived ? { e, d: derived } : { e };
}

/** The event compactEvent left `e`, with what `derived` names put back. */
function expandEvent(e: Json, derived = ''): Json {
  const event: Json = { ...e };
  const actions: Json = { ...((e.actions as Json | undefined) ?? {}) };
  for (const name of EMPTY_ACTIONS) actions[name] ??= {};
  if (derived.includes('t')) actions.requestedToolConfirmations = requestedConfirmations(e);
  event.actions = actions;
  if (derived.includes('a')) {
    const content = (e.content ?? {}) as Json;
    const responses = awaitingResponses(e, actions.requestedToolConfirmations as Json);
    event.content = { ...content, parts: [...((content.parts ?? []) as Json[]), ...responses] };
  }
  event.longRunningToolIds = derived.includes('l')
    ? confirmationCalls(e).map((call) => call.id)
    : (e.longRunningToolIds ?? []);
  return event;
}

/**
 * An ADK event, compact when that reads back exactly the event as JSON (checked here,
 * as it is written); otherwise whole, as `v` 1.
 */
export function encodeEvent(event: Event): string {
  const plain = plainJson(event);
  const { e, d } = compactEvent(plain);
  const packed = packStrings(e);
  const json = JSON.stringify({ v: COMPACT_VERSION, e: packed, ...(d ? { d } : {}) });
  return isDeepStrictEqual(expandEvent(unpackStrings(packed), d), plain)
    ? json
    : encodeRecord('event', event);
}

/** An event of `sessionId` as encodeEvent wrote it. */
export function decodeEvent(json: string, sessionId: string): Event {
  const raw = parse('event', json, sessionId);
  const body = compactBody('event', raw, sessionId);
  if (!body) return decodeRecord('event', json, sessionId);
  const { e, d } = body as { e?: Json; d?: string };
  if (typeof e !== 'object' || e === null) {
    throw recordUnreadable('event', sessionId, 'it holds no event');
  }
  const derived = typeof d === 'string' ? d : '';
  return checkRecord('event', expandEvent(unpackStrings(e), derived), sessionId);
}
