import { type Event, InMemorySessionService, Runner } from '@google/adk';
import type { Content, FunctionResponse } from '@google/genai';
import { createImageStudio } from '../examples/image-studio/app.js';
import { IMAGE_TOOL } from '../examples/image-studio/image-studio-rules.js';
import { CONFIRMATION_CALL } from '../src/runtime/segment/segment-collector.js';
import { expectCompleted, QUERY, USER } from './holdpoint-cycles.js';
import type { Cycle } from './measure.js';

async function collect(events: AsyncIterable<Event>): Promise<Event[]> {
  const all: Event[] = [];
  for await (const event of events) all.push(event);
  return all;
}

function parts(events: Event[]) {
  return events.flatMap((event) => event.content?.parts ?? []);
}

/**
 * The same image-studio agent (same rules model, same tool, same threshold) on
 * ADK's Runner and InMemorySessionService with no Holdpoint in between: what a
 * cycle costs before any durability or bookkeeping.
 */
export function adkBaselineCycle(): Cycle {
  const app = createImageStudio({ threshold: 1 });
  const agent = typeof app.agent === 'function' ? app.agent({ model: 'rules' }) : app.agent;
  const sessions = new InMemorySessionService();
  const runner = new Runner({ appName: app.name, agent, sessionService: sessions });
  return async () => {
    const session = await sessions.createSession({ appName: app.name, userId: USER });
    const run = (newMessage: Content) =>
      collect(runner.runAsync({ userId: USER, sessionId: session.id, newMessage }));
    const paused = await run({ role: 'user', parts: [{ text: QUERY }] });
    const call = parts(paused).find((p) => p.functionCall?.name === CONFIRMATION_CALL);
    const id = call?.functionCall?.id;
    if (!id) throw new Error('the baseline run did not ask for confirmation');
    const answer: FunctionResponse = {
      id,
      name: CONFIRMATION_CALL,
      response: { confirmed: true },
    };
    const done = await run({ role: 'user', parts: [{ functionResponse: answer }] });
    const result = parts(done).find((p) => p.functionResponse?.name === IMAGE_TOOL);
    const response = result?.functionResponse?.response ?? {};
    const artifacts = Array.isArray(response.artifacts) ? response.artifacts.length : 0;
    expectCompleted(response.status === 'approved' ? 'completed' : 'failed', artifacts);
  };
}
