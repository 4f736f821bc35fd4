import type { Logger } from 'pino';
import type { z } from 'zod';
import type { Principal } from '../../../core/principal.js';
import type { HoldpointRuntime } from '../../../runtime/holdpoint-runtime.js';
import type { Identity } from '../../auth/index.js';

/** The resources the REST API groups its operations by: one Hono sub-app and one OpenAPI tag each. */
export type Resource =
  | 'agent'
  | 'runs'
  | 'sessions'
  | 'approvals'
  | 'delegations'
  | 'grants'
  | 'audit'
  | 'server'
  | 'chat'
  | 'ag-ui'
  | 'a2a'
  | 'mcp'
  | 'deliveries';

/** What an operation's `act` and `present` get: the request as validated, and who sends it. */
export interface OperationCall<Body, Query> {
  body: Body;
  query: Query;
  /** The path's parameters (`:invocationId` …), as given. */
  params: Record<string, string>;
  /** Who sends the request, as its identity proved (and as any `user_id` it names agrees). */
  by: Principal;
  /** Names the request across its retries when it came with an `Idempotency-Key`. */
  requestId?: string;
  /** Where the API is mounted in a host's app (`/hp`; empty at the root). */
  mount: string;
  /**
   * The request as received, for what a protocol reads beside the body: its headers
   * (`A2A-Version`), its address (an agent card's endpoint; its Host checked by the guards).
   */
  request: Request;
  runtime: HoldpointRuntime;
  logger: Logger;
  identity: Identity;
}

/** A schema whose parsed value is an object (a body or a query). */
type ObjectSchema = z.ZodType<object>;

/**
 * One operation of the REST API, declared once: its route, its input (with its limits),
 * who may call it, what it does (a call into the runtime) and how its answer is
 * presented. The routes (`routes/`) and the OpenAPI document (`openapi/`) are derived
 * from these definitions; nothing else repeats them.
 */
export interface Operation<
  Body extends ObjectSchema = ObjectSchema,
  Query extends ObjectSchema = ObjectSchema,
  Answer extends z.ZodType = z.ZodType,
  Result = unknown,
> {
  /** The OpenAPI `operationId`. */
  name: string;
  method: 'get' | 'post' | 'put' | 'delete';
  /** Hono's form, under the API's mount: `/api/runs/:invocationId`. */
  path: string;
  /** One sentence: what it does (the CLI's list, OpenAPI's `summary`, the docs' table). */
  summary: string;
  /**
   * What a sentence cannot hold: who may, what else it answers or records (OpenAPI's
   * `description`, after the summary in the docs' table). Pages as `docs/x.md`.
   */
  description?: string;
  /** Answered without identity or rate counting (`/healthz`); every other route needs both. */
  public?: true;
  /** The JSON body; `optionalBody` reads an empty one as `{}`. */
  body?: Body;
  optionalBody?: true;
  query?: Query;
  /**
   * The user id the request names as who sends it (default: the body's `user_id`): it
   * must be the principal's (FORBIDDEN otherwise).
   */
  actingAs?: (body: z.output<Body>) => string | undefined;
  /** Counts against the principal's run limit too (it starts or resumes a run). */
  countsAsRun?: true;
  /**
   * Runs once per `Idempotency-Key` (a retry gets the first answer; `act` gives a
   * RunOutcome): the scope its keys are stored under (kept as stored: never rename one).
   */
  idempotent?: 'start' | 'resume' | 'recover' | 'decide';
  /** What it does: a call into the runtime. A `Response` (a stream) is sent as it is. */
  act(call: OperationCall<z.output<Body>, z.output<Query>>): Promise<Result | Response>;
  /** The answer's schema (status 200, JSON). */
  answer: Answer;
  /** The answer built from what `act` gave; typed by `answer`, so a drift is a compile error. */
  present(result: Result, call: OperationCall<z.output<Body>, z.output<Query>>): z.input<Answer>;
  /** The answer's status when not 200 (`/healthz`: 503 when the store does not answer or refuses writes). */
  status?: (answer: z.input<Answer>) => 200 | 503;
  /** Another form of the answer a request may ask for (a stream), for the document. */
  alsoAnswers?: { contentType: string; description: string };
}

/**
 * Declares an operation, its types checked against each other; erased for the lists
 * but for its name, so the names of a list are a type (`OperationName`).
 */
export function defineOperation<
  const Name extends string,
  Body extends ObjectSchema,
  Query extends ObjectSchema,
  Answer extends z.ZodType,
  Result,
>(operation: Operation<Body, Query, Answer, Result> & { name: Name }): Operation & { name: Name } {
  return operation as unknown as Operation & { name: Name };
}
