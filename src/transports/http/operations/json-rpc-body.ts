import { z } from 'zod';
import { jsonBoundsProblem, LIMITS } from '../../../core/limits.js';

/** A JSON-RPC envelope's own levels (`params.message.parts[].data`) above a decision's. */
const ENVELOPE_DEPTH = 8;

/**
 * A JSON-RPC request (A2A, MCP): any JSON object within the bounds every body keeps (a
 * decision's depth, and the envelope's); the protocol's SDK reads the envelope and its
 * params and answers what it cannot read with a JSON-RPC error, as its clients expect.
 * What nests deeper never reaches it.
 */
export const jsonRpcBody = z.looseObject({}).superRefine((value, ctx) => {
  const problem = jsonBoundsProblem(value, LIMITS.payloadDepth + ENVELOPE_DEPTH, 1024 * 1024);
  if (problem) ctx.addIssue({ code: 'custom', message: `the request ${problem}` });
});

/** A JSON-RPC answer: its result, or its error (A2A's and MCP's codes; Holdpoint's in A2A's data). */
export const jsonRpcEnvelope = z.looseObject({
  jsonrpc: z.string(),
  id: z.union([z.string(), z.number(), z.null()]),
  result: z.unknown().optional(),
  /** `{code, message, data}`: A2A's code; `data[0].metadata.holdpoint_code`, Holdpoint's. */
  error: z.unknown().optional(),
});
