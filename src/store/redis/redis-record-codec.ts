import type { Event } from '@google/adk';
import { AWAITING_CONFIRMATION, CONFIRMATION_CALL } from '../../core/confirmation-request.js';
import type { AuditEntry, Pause, RunRecord, SessionMeta } from '../../core/types.js';
import { DEFAULT_APPROVERS } from '../../session/decision/approvers.js';
import {
  checkRecord,
  decodeRecord,
  encodeRecord,
  RECORD_VERSION,
  type RecordKind,
  recordUnreadable,
} from '../record-codec.js';
import { mapFields, packId, setFields, unpackId } from './redis-packed-ids.js';

/**
 * Redis keeps its records compact (`v` 2): what the session record or the key already
 * says is left out of the records in it, what a record repeats of itself is stored once,
 * and the fields that hold ids and hashes are packed (redis-packed-ids.ts). Each is read
 * back whole, and
 * checked as every record is (checkRecord); a record of `v` 1 (an earlier release's, or
 * one the compact form cannot hold exactly) is read as record-codec.ts reads it.
 */
export const COMPACT_VERSION = 2;

/** What a session's keys and record say of every record in them. */
export interface RecordContext {
  sessionId: string;
  app: string;
  userId: string;
}

type Json = Record<string, unknown>;

/** `body` as a compact record. */
function compact(body: Json): string {
  return JSON.stringify({ v: COMPACT_VERSION, ...body });
}

/** The fields of each record that hold ids or hashes (packed). */
const META_IDS = ['auditHead'];
const PAUSE_IDS = ['invocationId'];
const APPROVAL_IDS = ['approvalId', 'toolCallId'];
const DECISION_IDS = ['approvalId', 'argsHash', 'editedArgsHash'];
const AUDIT_IDS = [
  'invocationId',
  'approvalId',
  'hash',
  'prevHash',
  'argsHash',
  'payloadHash',
  'editedArgsHash',
  'responseHash',
  'grantId',
];

/** Each record of `list` (an array) with its `fields` mapped by `map` (copies). */
function mapEach(list: unknown, fields: readonly string[], map: (value: unknown) => unknown) {
  return Array.isArray(list) ? list.map((item: Json) => mapFields(item, fields, map)) : list;
}

/** Each record of `list` (an array of the caller's own) with its `fields` mapped, in place. */
function setEach(list: unknown, fields: readonly string[], map: (value: unknown) => unknown) {
  if (Array.isArray(list)) for (const item of list) setFields(item as Json, fields, map);
  return list;
}

/**
 * The body of a compact record, or undefined when `json` is a record of `v` 1 (read it
 * with decodeRecord); RECORD_UNREADABLE for anything else.
 */
function compactBody(kind: RecordKind, json: string, sessionId: string): Json | undefined {
  let raw: unknown;
  try {
    raw = JSON.parse(json);
  } catch {
    throw recordUnreadable(kind, sessionId, 'it is not JSON');
  }
  const version = (raw as { v?: unknown } | null)?.v;
  if (version === RECORD_VERSION) return undefined;
  if (version !== COMPACT_VERSION) {
    throw recordUnreadable(
      kind,
      sessionId,
      typeof version === 'number'
        ? `it has schema v${version} and this release reads v${RECORD_VERSION} and v${COMPACT_VERSION}`
        : 'it carries no schema version',
    );
  }
  const { v: _version, ...body } = raw as Json;
  return body;
}

/** `record` without the fields whose values `known` holds (those are read back from it). */
function without(record: Json, known: Json): Json {
  const out: Json = {};
  for (const [key, value] of Object.entries(record)) {
    if (value !== undefined && !(key in known && known[key] === value)) out[key] = value;
  }
  return out;
}

/** Whether `a` and `b` are the same as JSON (key order included). */
function sameJson(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

/** The meta record, without what the session record says (ids, app, user). */
export function encodeMeta(meta: SessionMeta): string {
  const { sessionId: _s, app: _a, userId: _u, pauseId: _p, invocationId: _i, ...rest } = meta;
  return compact(setFields(rest, META_IDS, packId));
}

/** The meta record of `context`'s session, whose latest pause and run the record names. */
export function decodeMeta(
  json: string,
  context: RecordContext & { pauseId: string; invocationId: string },
): SessionMeta {
  const { sessionId, app, userId, pauseId, invocationId } = context;
  const body = compactBody('meta', json, sessionId);
  if (!body) return decodeRecord('meta', json, sessionId);
  const ids = { ...(pauseId ? { pauseId } : {}), ...(invocationId ? { invocationId } : {}) };
  const meta = { ...setFields(body, META_IDS, unpackId), sessionId, app, userId, ...ids };
  return checkRecord('meta', meta, sessionId);
}

/**
 * An approval as a pause holds it, without what the pause says (its times; an approval
 * always has them) and with the default approvers as 0 (never an approvers' value).
 */
function compactApproval(approval: Json, pause: Pause): Json {
  const out = without(approval, { createdAt: pause.createdAt, expiresAt: pause.expiresAt });
  if (sameJson(approval.approvers, DEFAULT_APPROVERS)) out.approvers = 0;
  return setFields(out, APPROVAL_IDS, packId);
}

function expandApproval(approval: Json, pause: Json): Json {
  const out: Json = {
    createdAt: pause.createdAt,
    expiresAt: pause.expiresAt,
    ...setFields(approval, APPROVAL_IDS, unpackId),
  };
  if (approval.approvers === 0) {
    const { roles, users, ...rest } = DEFAULT_APPROVERS;
    out.approvers = { ...rest, roles: [...roles], users: [...users] };
  }
  return out;
}

/**
 * A pause record, without what its key says (its session, app, user and id) and what its
 * approvals repeat of it.
 */
export function encodePause(pause: Pause, context: RecordContext): string {
  const body = setFields(
    without(pause as unknown as Json, { ...context, pauseId: pause.pauseId }),
    PAUSE_IDS,
    packId,
  );
  body.approvals = pause.approvals.map((approval) => compactApproval({ ...approval }, pause));
  body.decisions = mapEach(pause.decisions, DECISION_IDS, packId);
  return compact(body);
}

/** The pause `pauseId` of `context`'s session. */
export function decodePause(json: string, context: RecordContext & { pauseId: string }): Pause {
  const body = compactBody('pause', json, context.sessionId);
  if (!body) return decodeRecord('pause', json, context.sessionId);
  const pause: Json = { ...context, ...setFields(body, PAUSE_IDS, unpackId) };
  if (Array.isArray(body.approvals)) {
    pause.approvals = (body.approvals as Json[]).map((approval) => expandApproval(approval, pause));
  }
  pause.decisions = setEach(body.decisions, DECISION_IDS, unpackId);
  return checkRecord('pause', pause, context.sessionId);
}

/** A run record, without what its key says (its session, app, user and id). */
export function encodeRun(run: RunRecord, context: RecordContext): string {
  return compact(without(run as unknown as Json, { ...context, invocationId: run.invocationId }));
}

/** The run `invocationId` of `context`'s session. */
export function decodeRun(
  json: string,
  context: RecordContext & { invocationId: string },
): RunRecord {
  const body = compactBody('run', json, context.sessionId);
  if (!body) return decodeRecord('run', json, context.sessionId);
  return checkRecord('run', { ...context, ...body }, context.sessionId);
}

/** An audit line, without its session. */
export function encodeAudit(line: AuditEntry, sessionId: string): string {
  return compact(setFields(without(line as unknown as Json, { sessionId }), AUDIT_IDS, packId));
}

/** An audit line of `sessionId`. */
export function decodeAudit(json: string, sessionId: string): AuditEntry {
  const body = compactBody('audit', json, sessionId);
  if (!body) return decodeRecord('audit', json, sessionId);
  return checkRecord('audit', { sessionId, ...setFields(body, AUDIT_IDS, unpackId) }, sessionId);
}

/** The maps of ADK's `actions` that are empty in most events. */
const EMPTY_ACTIONS = [
  'stateDelta',
  'artifactDelta',
  'requestedAuthConfigs',
  'requestedToolConfirmations',
];

interface ConfirmationCall {
  id: string;
  name: string;
  args: { originalFunctionCall: { id: string; name: string }; toolConfirmation?: unknown };
}

/** The confirmation request calls (ADK's `adk_request_confirmation`) among `parts`. */
function confirmationCalls(parts: readonly unknown[]): ConfirmationCall[] {
  return parts.flatMap((part) => {
    const call = (part as { functionCall?: Partial<ConfirmationCall> }).functionCall;
    const original = call?.args?.originalFunctionCall;
    return call?.name === CONFIRMATION_CALL && call.id && original?.id && original.name
      ? [call as ConfirmationCall]
      : [];
  });
}

/** The responses Holdpoint adds to a confirmation request event (see SegmentSessions). */
function awaitingResponses(calls: ConfirmationCall[], requested: unknown): Json[] {
  const asked = (requested ?? {}) as Json;
  return calls
    .filter((call) => call.args.originalFunctionCall.id in asked)
    .map(({ args: { originalFunctionCall: original } }) => ({
      functionResponse: { id: original.id, name: original.name, response: AWAITING_CONFIRMATION },
    }));
}

/** What a confirmation request asks of each original call, as ADK repeats it in `actions`. */
function requestedConfirmations(calls: ConfirmationCall[]): Json {
  return Object.fromEntries(
    calls.map((call) => [call.args.originalFunctionCall.id, call.args.toolConfirmation]),
  );
}

/** Whether `value` is `{}` as JSON. */
function isEmptyMap(value: unknown): boolean {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return false;
  if (Object.getPrototypeOf(value) === Object.prototype) {
    for (const _key in value) return false;
    return true;
  }
  return JSON.stringify(value) === '{}';
}

/**
 * An ADK event with what it repeats of itself left out, each part only where expandEvent
 * gives back exactly the same JSON: the empty maps of `actions` (an event has all four),
 * an empty `longRunningToolIds`, and in a confirmation request what ADK repeats of its
 * calls and the responses Holdpoint adds to it. `d` names what expandEvent derives again:
 * `t` the requested confirmations, `a` the added responses, `l` the long-running ids.
 * Undefined for an event that lacks what expandEvent would give it (stored whole).
 */
function compactEvent(event: Event): { e: Json; d: string } | undefined {
  const actions = event.actions as unknown as Json | undefined;
  // A map JSON leaves out (undefined) or null would come back as {}: such an event is whole.
  if (!actions || EMPTY_ACTIONS.some((name) => actions[name] == null)) return undefined;
  if (!Array.isArray(event.longRunningToolIds)) return undefined;
  const e: Json = { ...event };
  let d = '';
  const content = event.content;
  const parts = content?.parts ?? [];
  const calls = confirmationCalls(parts);
  const responses = awaitingResponses(calls, actions.requestedToolConfirmations);
  if (responses.length > 0 && sameJson(parts.slice(-responses.length), responses)) {
    e.content = { ...content, parts: parts.slice(0, -responses.length) };
    d += 'a';
  }
  const kept: Json = {};
  for (const [name, value] of Object.entries(actions)) {
    if (!(EMPTY_ACTIONS.includes(name) && isEmptyMap(value))) kept[name] = value;
  }
  const requested = kept.requestedToolConfirmations;
  if (requested && calls.length > 0 && sameJson(requested, requestedConfirmations(calls))) {
    delete kept.requestedToolConfirmations;
    d += 't';
  }
  if (Object.keys(kept).length > 0) e.actions = kept;
  else delete e.actions;
  const longRunning = event.longRunningToolIds;
  if (longRunning.length === 0) delete e.longRunningToolIds;
  else if (
    calls.length > 0 &&
    sameJson(
      longRunning,
      calls.map((call) => call.id),
    )
  ) {
    delete e.longRunningToolIds;
    d += 'l';
  }
  return { e, d };
}

/** The event compactEvent left `e`, with what `derived` names put back. */
function expandEvent(e: Json, derived: string): Json {
  const event: Json = { ...e };
  const content = e.content as { parts?: unknown[] } | undefined;
  const calls = confirmationCalls(content?.parts ?? []);
  const actions: Json = { ...((e.actions as Json | undefined) ?? {}) };
  for (const name of EMPTY_ACTIONS) actions[name] ??= {};
  if (derived.includes('t')) actions.requestedToolConfirmations = requestedConfirmations(calls);
  event.actions = actions;
  if (derived.includes('a')) {
    const responses = awaitingResponses(calls, actions.requestedToolConfirmations);
    event.content = { ...content, parts: [...(content?.parts ?? []), ...responses] };
  }
  event.longRunningToolIds = derived.includes('l')
    ? calls.map((call) => call.id)
    : (e.longRunningToolIds ?? []);
  return event;
}

/**
 * A part of an event with its call's or response's ids mapped by `map`: in place when
 * the part is the caller's own (`own`, parsed), else a copy of what changes.
 */
function mapPartIds(part: unknown, map: (value: unknown) => unknown, own: boolean): unknown {
  if (part === null || typeof part !== 'object') return part;
  const set = own ? setFields : mapFields;
  const { functionCall, functionResponse } = part as Json;
  const out = own ? (part as Json) : { ...(part as Json) };
  if (functionCall !== null && typeof functionCall === 'object') {
    const call = set(functionCall as Json, ['id'], map);
    const args = call.args as Json | undefined;
    const original = args?.originalFunctionCall;
    if (call.name === CONFIRMATION_CALL && original !== null && typeof original === 'object') {
      const mapped = set(original as Json, ['id'], map);
      call.args = own ? args : { ...args, originalFunctionCall: mapped };
    }
    out.functionCall = call;
  }
  if (functionResponse !== null && typeof functionResponse === 'object') {
    out.functionResponse = set(functionResponse as Json, ['id'], map);
  }
  return out;
}

/**
 * An event with its ids (its run's, ADK's invocation, its calls' and responses') mapped,
 * `e` itself (a copy of its own) changed: its parts in place too when `own` (parsed).
 */
function mapEventIds(e: Json, map: (value: unknown) => unknown, own: boolean): Json {
  setFields(e, ['invocationId'], map);
  const metadata = e.customMetadata;
  if (metadata !== null && typeof metadata === 'object') {
    e.customMetadata = (own ? setFields : mapFields)(metadata as Json, ['adkInvocationId'], map);
  }
  const content = e.content as Json | undefined;
  if (Array.isArray(content?.parts)) {
    const parts = content.parts.map((part) => mapPartIds(part, map, own));
    e.content = own ? Object.assign(content, { parts }) : { ...content, parts };
  }
  return e;
}

/** An ADK event, compact; whole (`v` 1) when it lacks what the compact form would give it. */
export function encodeEvent(event: Event): string {
  const compacted = compactEvent(event);
  if (!compacted) return encodeRecord('event', event);
  const e = mapEventIds(compacted.e, packId, false);
  const { d } = compacted;
  return JSON.stringify(d ? { v: COMPACT_VERSION, e, d } : { v: COMPACT_VERSION, e });
}

/** An event of `sessionId` as encodeEvent wrote it. */
export function decodeEvent(json: string, sessionId: string): Event {
  const body = compactBody('event', json, sessionId);
  if (!body) return decodeRecord('event', json, sessionId);
  const { e, d } = body as { e?: unknown; d?: unknown };
  if (typeof e !== 'object' || e === null) {
    throw recordUnreadable('event', sessionId, 'it holds no event');
  }
  const event = expandEvent(mapEventIds(e as Json, unpackId, true), typeof d === 'string' ? d : '');
  return checkRecord('event', event, sessionId);
}
