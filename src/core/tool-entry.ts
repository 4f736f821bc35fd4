/**
 * An app's `approvals` name a tool, or every tool of a toolset by its prefix:
 * `'billing_*'` names the tools ADK's `MCPToolset` names `billing_<tool>` when given the
 * prefix `billing` (one MCP server's tools). The tool's own name wins over a prefix, and
 * a longer prefix over a shorter one.
 */
export function toolKeyOf(keys: Iterable<string>, toolName: string): string | undefined {
  let found: string | undefined;
  for (const key of keys) {
    if (key === toolName) return key;
    if (!key.endsWith('_*')) continue;
    const prefix = key.slice(0, -1);
    if (toolName.startsWith(prefix) && (found === undefined || key.length > found.length)) {
      found = key;
    }
  }
  return found;
}

/** The entry of `entries` (keyed as the app's approvals are) for `toolName`, if any. */
export function entryOf<T>(
  entries: Readonly<Record<string, T>> | undefined,
  toolName: string,
): T | undefined {
  if (!entries) return undefined;
  const key = toolKeyOf(Object.keys(entries), toolName);
  return key === undefined ? undefined : entries[key];
}

/** Whether `names` (keyed as the app's approvals are) name `toolName`. */
export function namesTool(names: ReadonlySet<string>, toolName: string): boolean {
  return toolKeyOf(names, toolName) !== undefined;
}
