import type { Context } from '@google/adk';

/** The context ADK hands a tool; every tool of this app runs inside an agent. */
export function requireContext(context: Context | undefined): Context {
  if (!context) throw new Error('the knowledge assistant tools run inside an agent');
  return context;
}

/**
 * A long-running tool's `execute`: returning undefined is how it says "a person
 * answers this"; ADK pauses the run and the answer arrives later as its result.
 */
export async function waitForPerson(): Promise<undefined> {
  return undefined;
}
