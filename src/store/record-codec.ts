import type { Event } from '@google/adk';
import type { Content } from '@google/genai';
import { z } from 'zod';
import { HoldpointError } from '../core/errors.js';
import {
  type ApprovalRequest,
  AUDIT_ACTIONS,
  type AuditEntry,
  type Decision,
  type Pause,
  type RunRecord,
  type SessionMeta,
} from '../core/types.js';
import type { StoredMemory } from './user-memories.js';

/**
 * The schema version every stored record carries as `v`. A release reads only its
 * own version: a record written by an older or newer one is refused with a clear
 * error instead of being read as something it is not.
 */
export const RECORD_VERSION = 1;

const decision: z.ZodType<Decision> = z.object({
  approvalId: z.string(),
  approved: z.boolean(),
  reason: z.string().optional(),
  payload: z.unknown().optional(),
  decidedBy: z.string(),
  at: z.number(),
  argsHash: z.string().optional(),
  channel: z.string().optional(),
  onBehalfOf: z.string().optional(),
  requestId: z.string().optional(),
  editedArgs: z.record(z.string(), z.unknown()).optional(),
  editedArgsHash: z.string().optional(),
  editNeedsApproval: z.literal(true).optional(),
  editedHint: z.string().optional(),
  response: z.unknown().optional(),
  grant: z
    .object({
      grantId: z.string(),
      scope: z.enum(['session', 'user']),
      expiresAt: z.number(),
      match: z.record(z.string(), z.any()).optional(),
    })
    .optional(),
});

const approval: z.ZodType<ApprovalRequest> = z.object({
  approvalId: z.string(),
  kind: z.enum(['confirmation', 'input']),
  toolName: z.string(),
  toolCallId: z.string(),
  args: z.record(z.string(), z.unknown()),
  hint: z.string(),
  payload: z.unknown().optional(),
  mayHaveRun: z.boolean().optional(),
  carriedEdit: decision.optional(),
  awaitIndex: z.number().optional(),
  approvers: z
    .object({
      owner: z.boolean(),
      roles: z.array(z.string()),
      users: z.array(z.string()),
      quorum: z.number(),
      requesterMayApprove: z.boolean(),
    })
    .optional(),
  notify: z
    .object({ channels: z.array(z.string()).optional(), to: z.array(z.string()).optional() })
    .optional(),
  sla: z
    .object({
      remind: z
        .object({
          afterSeconds: z.number(),
          everySeconds: z.number().optional(),
          times: z.number(),
        })
        .optional(),
      escalate: z
        .array(
          z.object({
            afterSeconds: z.number(),
            to: z.object({ roles: z.array(z.string()), users: z.array(z.string()) }),
          }),
        )
        .optional(),
      deadline: z
        .object({ afterSeconds: z.number(), action: z.enum(['deny', 'park', 'escalate']) })
        .optional(),
    })
    .optional(),
  slaState: z
    .object({
      reminders: z.number(),
      escalations: z.number(),
      deadlinePassed: z.literal(true).optional(),
    })
    .optional(),
  links: z.enum(['link', 'link+sign-in']).optional(),
  decisionPolicy: z
    .object({
      editable: z.union([z.literal(true), z.array(z.string())]).optional(),
      editMayNeedApproval: z.literal(true).optional(),
      respond: z.literal(true).optional(),
      respondSchema: z.record(z.string(), z.unknown()).optional(),
      argsSchema: z.record(z.string(), z.unknown()).optional(),
      grants: z
        .object({ scopes: z.array(z.enum(['session', 'user'])), maxHours: z.number() })
        .optional(),
    })
    .optional(),
  createdAt: z.number(),
  expiresAt: z.number(),
});

const meta: z.ZodType<SessionMeta> = z.object({
  sessionId: z.string(),
  app: z.string(),
  userId: z.string(),
  status: z.enum(['idle', 'running', 'paused']),
  invocationId: z.string().optional(),
  pauseId: z.string().optional(),
  lease: z.object({ owner: z.string(), until: z.number() }).optional(),
  auditHead: z.string().optional(),
  title: z.string().optional(),
  createdAt: z.number(),
  updatedAt: z.number(),
});

const pause: z.ZodType<Pause> = z.object({
  pauseId: z.string(),
  sessionId: z.string(),
  invocationId: z.string(),
  app: z.string(),
  userId: z.string(),
  status: z.enum(['pending', 'resuming', 'resumed', 'expired', 'cancelled']),
  approvals: z.array(approval),
  decisions: z.array(decision),
  supersededRequests: z.array(z.string()).optional(),
  heldBy: z.object({ owner: z.string(), until: z.number() }).optional(),
  createdAt: z.number(),
  expiresAt: z.number(),
});

const run: z.ZodType<RunRecord> = z.object({
  invocationId: z.string(),
  sessionId: z.string(),
  app: z.string(),
  userId: z.string(),
  query: z.string(),
  status: z.enum(['running', 'paused', 'completed', 'failed', 'cancelled', 'expired']),
  result: z.string().optional(),
  error: z.string().optional(),
  checkpointed: z.boolean().optional(),
  appFingerprint: z.string().optional(),
  appShape: z.array(z.string()).optional(),
  startedAt: z.number(),
  updatedAt: z.number(),
});

const audit: z.ZodType<AuditEntry> = z.object({
  at: z.number(),
  action: z.enum(AUDIT_ACTIONS),
  sessionId: z.string(),
  invocationId: z.string(),
  actor: z.string(),
  approvalId: z.string().optional(),
  toolName: z.string().optional(),
  argsHash: z.string().optional(),
  payloadHash: z.string().optional(),
  approved: z.boolean().optional(),
  reason: z.string().optional(),
  unnamedPause: z.literal(true).optional(),
  channel: z.string().optional(),
  onBehalfOf: z.string().optional(),
  to: z.array(z.string()).optional(),
  editedArgsHash: z.string().optional(),
  responseHash: z.string().optional(),
  grantId: z.string().optional(),
  grantScope: z.enum(['session', 'user']).optional(),
  grantUntil: z.number().optional(),
  prevHash: z.string().optional(),
  hash: z.string().optional(),
});

// ADK's own record: what Holdpoint and ADK rely on is checked, the rest kept as is.
const event = z.looseObject({
  id: z.string(),
  invocationId: z.string(),
  author: z.string(),
  timestamp: z.number(),
  actions: z.looseObject({}),
}) as unknown as z.ZodType<Event>;

// What ADK's memory service kept of one source (a session) for a user.
const memories: z.ZodType<StoredMemory[]> = z.array(
  z.object({
    content: z.looseObject({}) as unknown as z.ZodType<Content>,
    author: z.string().optional(),
    timestamp: z.string().optional(),
    metadata: z.record(z.string(), z.unknown()).optional(),
  }),
);

const schemas = { meta, pause, run, audit, event, memories };

/** Kinds whose records are not plain objects of ours: stored under their kind's name. */
const WRAPPED = new Set<RecordKind>(['event', 'memories']);

/** The kinds of stored records. */
export type RecordKind = keyof typeof schemas;
type RecordOf<K extends RecordKind> = z.infer<(typeof schemas)[K]>;

/** A record as stored: its fields with `v`, or `{v, event}` / `{v, memories}`. */
export function encodeRecord<K extends RecordKind>(kind: K, record: RecordOf<K>): string {
  return JSON.stringify(
    WRAPPED.has(kind) ? { v: RECORD_VERSION, [kind]: record } : { v: RECORD_VERSION, ...record },
  );
}

function unreadable(kind: RecordKind, sessionId: string, why: string): HoldpointError {
  return new HoldpointError(
    'RECORD_UNREADABLE',
    `A stored ${kind} record of session ${sessionId} cannot be read: ${why}.`,
    { session_id: sessionId, record: kind },
  );
}

/** Reads a stored record; RECORD_UNREADABLE when it is not one this release wrote. */
export function decodeRecord<K extends RecordKind>(
  kind: K,
  json: string,
  sessionId: string,
): RecordOf<K> {
  let raw: unknown;
  try {
    raw = JSON.parse(json);
  } catch {
    throw unreadable(kind, sessionId, 'it is not JSON');
  }
  const version = (raw as { v?: unknown } | null)?.v;
  if (version !== RECORD_VERSION) {
    throw unreadable(
      kind,
      sessionId,
      typeof version === 'number'
        ? `it has schema v${version} and this release reads v${RECORD_VERSION}`
        : 'it carries no schema version',
    );
  }
  const body = WRAPPED.has(kind) ? (raw as Record<string, unknown>)[kind] : raw;
  return checkRecord(kind, body, sessionId);
}

/**
 * A record of `kind` read some other way (a store's own compact form, expanded), checked
 * as decodeRecord checks one; RECORD_UNREADABLE when it is not one.
 */
export function checkRecord<K extends RecordKind>(
  kind: K,
  body: unknown,
  sessionId: string,
): RecordOf<K> {
  const parsed = schemas[kind].safeParse(body);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw unreadable(kind, sessionId, `${issue?.path.join('.') || 'it'}: ${issue?.message}`);
  }
  return parsed.data as RecordOf<K>;
}

/** RECORD_UNREADABLE for a stored `kind` record of `sessionId`, saying `why`. */
export function recordUnreadable(kind: RecordKind, sessionId: string, why: string): HoldpointError {
  return unreadable(kind, sessionId, why);
}

/**
 * A stored record whose `schema` carries its version `v` (a literal), read back without
 * it: undefined when nothing is stored (`null`), `unreadable()` thrown when it is not
 * JSON or not of the schema, so a caller never acts on a record it cannot read.
 */
export function decodeVersioned<T extends { v: number }>(
  json: string | null,
  schema: z.ZodType<T>,
  unreadable: () => HoldpointError,
): Omit<T, 'v'> | undefined {
  if (json === null) return undefined;
  let raw: unknown;
  try {
    raw = JSON.parse(json);
  } catch {
    throw unreadable();
  }
  const parsed = schema.safeParse(raw);
  if (!parsed.success) throw unreadable();
  const { v: _version, ...record } = parsed.data;
  return record;
}
