/** Methods that may change something; GET, HEAD and OPTIONS only read. */
const STATE_CHANGING = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/** Whether a request with `method` may change state, and so is guarded against other sites. */
export function isStateChanging(method: string): boolean {
  return STATE_CHANGING.has(method.toUpperCase());
}
