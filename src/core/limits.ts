/**
 * The bounds of what a client may send, checked at every edge (HTTP, SSE, WebSocket,
 * the in-process API), so one request can neither stall the process nor store
 * something no later read can handle.
 */
export const LIMITS = {
  /** A user message (a run's query). */
  textChars: 10_000,
  /** A decision's or a cancellation's reason. */
  reasonChars: 2_000,
  /** Ids and user names. */
  idChars: 200,
  /** A decision payload, as JSON. */
  payloadBytes: 64 * 1024,
  /** How deeply a decision payload may nest objects and arrays. */
  payloadDepth: 32,
  /** Decisions in one request. */
  decisions: 100,
  /**
   * Approvals one pause may ask for: an agent that asks people for more in one step
   * has run away, and its run fails instead of flooding every inbox.
   */
  approvalsPerPause: 100,
  /** The largest page any list answers. */
  pageSize: 200,
} as const;

/** Why a single value is not JSON, or undefined when it is (its children are checked apart). */
function notJson(value: unknown): string | undefined {
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return undefined;
    case 'number':
      return Number.isFinite(value) ? undefined : `is not JSON (${value})`;
    case 'object': {
      if (value === null || Array.isArray(value)) return undefined;
      const prototype = Object.getPrototypeOf(value);
      if (prototype === Object.prototype || prototype === null) return undefined;
      return `is not JSON (a ${prototype?.constructor?.name ?? 'non-plain object'})`;
    }
    default:
      return `is not JSON (a ${typeof value})`;
  }
}

/**
 * Why `value` is not a JSON value within `maxDepth` levels and `maxBytes` bytes, or
 * undefined when it is: plain objects, arrays, strings, finite numbers, booleans and
 * null, each object met once. Walks the value without recursion, so any input is safe.
 */
export function jsonBoundsProblem(
  value: unknown,
  maxDepth: number = LIMITS.payloadDepth,
  maxBytes: number = LIMITS.payloadBytes,
): string | undefined {
  const stack: { value: unknown; depth: number }[] = [{ value, depth: 0 }];
  const seen = new Set<object>();
  let visited = 0;
  while (stack.length > 0) {
    const next = stack.pop() as { value: unknown; depth: number };
    visited += 1;
    if (visited > maxBytes) return `is larger than ${maxBytes} bytes`;
    const problem = notJson(next.value);
    if (problem) return problem;
    if (next.value === null || typeof next.value !== 'object') continue;
    if (seen.has(next.value)) return 'refers to the same object twice (or to itself)';
    seen.add(next.value);
    if (next.depth >= maxDepth) return `nests deeper than ${maxDepth} levels`;
    const children = Array.isArray(next.value) ? next.value : Object.values(next.value);
    for (const child of children) {
      if (child !== undefined || Array.isArray(next.value)) {
        stack.push({ value: child, depth: next.depth + 1 });
      }
    }
  }
  const bytes = Buffer.byteLength(JSON.stringify(value) ?? 'null');
  return bytes > maxBytes ? `is larger than ${maxBytes} bytes` : undefined;
}
