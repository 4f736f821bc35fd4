import { a2aOperations } from './a2a.js';
import { agUiOperations } from './ag-ui.js';
import { agentOperations } from './agent.js';
import { approvalOperations } from './approvals.js';
import { auditOperations } from './audit.js';
import { chatOperations } from './chat.js';
import { delegationOperations } from './delegations.js';
import { deliveryOperations } from './deliveries.js';
import { grantOperations } from './grants.js';
import { mcpOperations } from './mcp.js';
import type { Operation, Resource } from './operation.js';
import { runOperations } from './runs.js';
import { serverOperations } from './server.js';
import { sessionOperations } from './sessions.js';

/**
 * Every operation of the REST API, by resource: each group is one Hono sub-app and
 * one OpenAPI tag. Adding an operation is adding its definition to its group.
 */
export const OPERATIONS_BY_RESOURCE: Readonly<Record<Resource, readonly Operation[]>> = {
  server: serverOperations,
  agent: agentOperations,
  runs: runOperations,
  sessions: sessionOperations,
  approvals: approvalOperations,
  delegations: delegationOperations,
  grants: grantOperations,
  audit: auditOperations,
  chat: chatOperations,
  'ag-ui': agUiOperations,
  a2a: a2aOperations,
  mcp: mcpOperations,
  deliveries: deliveryOperations,
};

/** Every operation's name (its OpenAPI `operationId`), as a type: from the lists above. */
export type OperationName = (
  | typeof serverOperations
  | typeof agentOperations
  | typeof runOperations
  | typeof sessionOperations
  | typeof approvalOperations
  | typeof delegationOperations
  | typeof grantOperations
  | typeof auditOperations
  | typeof chatOperations
  | typeof agUiOperations
  | typeof a2aOperations
  | typeof mcpOperations
  | typeof deliveryOperations
)[number]['name'];

const OPERATIONS_BY_NAME: ReadonlyMap<string, Operation> = new Map(
  Object.values(OPERATIONS_BY_RESOURCE)
    .flat()
    .map((operation) => [operation.name, operation]),
);

/** The operation named `name` (its OpenAPI `operationId`), or undefined when none is. */
export function operationNamed(name: string): Operation | undefined {
  return OPERATIONS_BY_NAME.get(name);
}

export type { Operation, OperationCall } from './operation.js';
