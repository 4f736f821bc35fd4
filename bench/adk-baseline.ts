import { type Event, FunctionTool, InMemorySessionService, LlmAgent, Runner } from '@google/adk';
import type { Content, FunctionResponse } from '@google/genai';
import { z } from 'zod';
import { generateImages } from '../examples/image-studio/generate-images.js';
import {
  IMAGE_TOOL,
  MAX_IMAGES,
  respondImageStudio,
} from '../examples/image-studio/image-studio-rules.js';
import { CONFIRMATION_CALL } from '../src/agents/confirmation-call.js';
import { RulesModel } from '../src/agents/rules-model.js';
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
 * The image-studio agent (same rules model, same result, same threshold), gated by
 * ADK's own `requireConfirmation`: the example's tool asks for confirmation itself,
 * which bare ADK-JS cannot resume (`confirmation_not_required`); the cost is the same.
 */
function baselineAgent(): LlmAgent {
  const tool = new FunctionTool({
    name: IMAGE_TOOL,
    description: `Generates num_images images (1 to ${MAX_IMAGES}) and returns them.`,
    parameters: z.object({ num_images: z.number().int().min(1).max(MAX_IMAGES) }),
    requireConfirmation: ({ num_images }) => num_images > 1,
    execute: async ({ num_images }) => ({
      status: 'approved',
      order_id: `REQ-${num_images}-HUMAN`,
      num_images,
      artifacts: generateImages(num_images),
    }),
  });
  return new LlmAgent({
    name: 'image_studio',
    model: new RulesModel('image-studio', respondImageStudio),
    instruction: 'Generate images.',
    tools: [tool],
  });
}

/**
 * That agent on ADK's Runner and InMemorySessionService with no Holdpoint in
 * between: what a cycle costs before any durability or bookkeeping.
 */
export function adkBaselineCycle(): Cycle {
  const app = { name: 'image-studio' };
  const sessions = new InMemorySessionService();
  const runner = new Runner({
    appName: app.name,
    agent: baselineAgent(),
    sessionService: sessions,
  });
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
