import { createEvent, type Event } from '@google/adk';
import type { Content, Part } from '@google/genai';

/** The branch each tool call in `events` was made in, for the calls made in one. */
function callBranches(events: Event[]): Map<string, string> {
  const branches = new Map<string, string>();
  for (const event of events) {
    if (!event.branch) continue;
    for (const part of event.content?.parts ?? []) {
      if (part.functionCall?.id) branches.set(part.functionCall.id, event.branch);
    }
  }
  return branches;
}

/**
 * The user events that carry `messages` (a resumed pause's answers) into ADK when
 * some of them answer calls made in a branch of a ParallelAgent: each message split
 * by branch, each part in the branch of the call it answers. Undefined when none does
 * (the messages go in as they are). ADK shows a branch its own events and those of no
 * branch; one event answering two branches' calls would show each branch an answer
 * to a call it never made, which ADK refuses ("Last response event should only
 * contain the responses for the function calls in the same function call event"),
 * and so would a model.
 */
export function answersByBranch(
  events: Event[],
  messages: readonly Content[],
  invocationId: string,
): Event[] | undefined {
  const branches = callBranches(events);
  const branchOf = (part: Part) => {
    const id = part.functionResponse?.id;
    return id ? branches.get(id) : undefined;
  };
  if (!messages.some((content) => content.parts?.some((part) => branchOf(part)))) return undefined;
  return messages.flatMap((content) => {
    const byBranch = new Map<string | undefined, Part[]>();
    for (const part of content.parts ?? []) {
      const branch = branchOf(part);
      byBranch.set(branch, [...(byBranch.get(branch) ?? []), part]);
    }
    return [...byBranch].map(([branch, parts]) =>
      createEvent({ invocationId, author: 'user', branch, content: { ...content, parts } }),
    );
  });
}
