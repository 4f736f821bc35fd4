import { z } from 'zod';
import { HoldpointError } from '../core/errors.js';
import { type Principal, principalSchema, SYSTEM } from '../core/principal.js';
import { idText, validate } from '../core/validate.js';
import type { RuntimeOperations } from '../runtime/operations.js';

/**
 * Who acts in an in-process call, as your code vouches for it: a principal id, or a
 * principal with its roles.
 */
export type Actor = string | { id: string; roles?: readonly string[] };

/** An operation's one name: the library's method, the HTTP `operationId`, `holdpoint api <name>`. */
export type OperationName = keyof RuntimeOperations;

/**
 * Operations a person does, recorded as theirs (a run's owner, a decision's decider, a
 * grant's revoker): in process they need who acts. The others default to Holdpoint
 * itself (`system`, an admin), the host's own reads and clean-ups.
 */
const ACTS_AS_A_PERSON = [
  'startRun',
  'resumeRun',
  'decideApproval',
  'reassignApproval',
  'createSession',
  'revokeGrant',
] as const satisfies readonly OperationName[];

type ActsAsAPerson = (typeof ACTS_AS_A_PERSON)[number];

/**
 * One runtime operation as the library offers it: its input, then who acts (`as`), then
 * what else it takes (a run-event sink, a handler). `as` may be left out where the
 * operation runs as Holdpoint itself by default and nothing required follows it.
 */
export type LibraryCall<Name extends OperationName> = RuntimeOperations[Name] extends (
  input: infer Input,
  by: Principal,
  ...extras: infer Extras
) => infer Result
  ? Name extends ActsAsAPerson
    ? (input: Input, as: Actor, ...extras: Extras) => Result
    : Partial<Extras> extends Extras
      ? (input: Input, as?: Actor, ...extras: Extras) => Result
      : (input: Input, as: Actor | undefined, ...extras: Extras) => Result
  : never;

/** Every runtime operation, under its one name, as the library offers it. */
export type LibraryOperations = { [Name in OperationName]: LibraryCall<Name> };

/** What `Name` takes as its input: `OperationInput<'listApprovals'>`. */
export type OperationInput<Name extends OperationName> = Parameters<LibraryCall<Name>>[0];

/** What `Name` gives back, awaited: `OperationResult<'listApprovals'>` is a page of approvals. */
export type OperationResult<Name extends OperationName> = Awaited<ReturnType<LibraryCall<Name>>>;

const actor = z.union([idText, principalSchema.partial({ roles: true })]);

/** The principal an in-process caller vouches for; Holdpoint itself when none is given. */
export function principalOf(given: Actor | undefined): Principal {
  if (given === undefined) return SYSTEM;
  const parsed = validate(actor, given);
  return typeof parsed === 'string'
    ? { id: parsed, roles: [] }
    : { id: parsed.id, roles: parsed.roles ?? [] };
}

function actingAs(name: OperationName, given: Actor | undefined): Principal {
  if (given === undefined && (ACTS_AS_A_PERSON as readonly string[]).includes(name)) {
    throw new HoldpointError(
      'VALIDATION_FAILED',
      `${name} is done by a person: give who acts as its second argument ('alice' or { id, roles }).`,
      { field: 'as' },
    );
  }
  return principalOf(given);
}

/**
 * The runtime's operations for in-process callers, derived from the table: each takes
 * who acts as your code vouches for it instead of a checked principal. A malformed or
 * missing actor is refused by a rejected promise, as everything else is.
 */
export function libraryOperations(operations: RuntimeOperations): LibraryOperations {
  const table = operations as unknown as Record<
    string,
    (input: unknown, by: Principal, ...extras: unknown[]) => unknown
  >;
  return Object.fromEntries(
    Object.entries(table).map(([name, operation]) => [
      name,
      (input: unknown, as: Actor | undefined, ...extras: unknown[]) => {
        let by: Principal;
        try {
          by = actingAs(name as OperationName, as);
        } catch (error) {
          return Promise.reject(error);
        }
        return operation(input, by, ...extras);
      },
    ]),
  ) as unknown as LibraryOperations;
}
