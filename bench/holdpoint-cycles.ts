import type { HoldpointRuntime } from '../src/runtime/holdpoint-runtime.js';
import type { RuntimeOperations } from '../src/runtime/operations.js';
import type { RunOutcome } from '../src/runtime/run-outcome.js';
import type { Cycle } from './measure.js';

/** What every scenario asks: ten images is above the approval threshold, so it pauses. */
export const QUERY = 'Generate 10 images';
export const IMAGES = 10;
export const USER = 'bench';
export const APP = 'image-studio';

/** Throws unless a resumed run completed with every image, so a broken cycle is never timed. */
export function expectCompleted(status: string, artifacts: number): void {
  if (status !== 'completed' || artifacts !== IMAGES) {
    throw new Error(`cycle ended ${status} with ${artifacts} images, expected ${IMAGES}`);
  }
}

function expectPaused(outcome: { status: string }): void {
  if (outcome.status !== 'pending_approval') {
    throw new Error(`start ended ${outcome.status}, expected pending_approval`);
  }
}

/** What a cycle calls; a floor scenario puts a round trip behind each answer. */
type CycleRuntime = Pick<RuntimeOperations, 'startRun' | 'resumeRun'>;

/** Starts a run of `userId` that pauses for approval; returns its session id. */
export async function startPaused(runtime: CycleRuntime, userId = USER): Promise<string> {
  const paused = await runtime.startRun({ query: QUERY, app: APP }, { id: userId, roles: [] });
  expectPaused(paused);
  return paused.sessionId;
}

/** Approves everything `sessionId` waits for, as `userId`, and checks the run completed. */
export async function resumeApproved(
  runtime: CycleRuntime,
  sessionId: string,
  userId = USER,
): Promise<void> {
  const done: RunOutcome = await runtime.resumeRun(
    { sessionId, approved: true },
    { id: userId, roles: [] },
  );
  expectCompleted(done.status, done.status === 'completed' ? done.artifacts.length : 0);
}

/** A cycle on the runtime itself: start, then approve everything. */
export function inProcessCycle(runtime: CycleRuntime): Cycle {
  return async () => resumeApproved(runtime, await startPaused(runtime));
}

/**
 * A cycle on `runtime` (the memory store) that waits for one `roundTrip` behind each
 * of its two answers. A store that makes the pause durable before answering
 * `pending_approval`, and the completion before answering `completed`, waits at
 * least that long: this is the least a durable cycle can cost on this machine.
 */
export function durableFloorCycle(
  runtime: HoldpointRuntime,
  roundTrip: () => Promise<unknown>,
): Cycle {
  const afterRoundTrip = async <T>(answer: Promise<T>): Promise<T> => {
    const outcome = await answer;
    await roundTrip();
    return outcome;
  };
  return inProcessCycle({
    startRun: (request, by) => afterRoundTrip(runtime.operations.startRun(request, by)),
    resumeRun: (request, by) => afterRoundTrip(runtime.operations.resumeRun(request, by)),
  });
}

interface OutcomeBody {
  status: string;
  session_id: string;
  pause_id?: string;
  artifacts?: unknown[];
}

async function post(url: string, body: unknown): Promise<OutcomeBody> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-holdpoint-user': USER },
    body: JSON.stringify(body),
  });
  const json = (await response.json()) as OutcomeBody;
  if (!response.ok) throw new Error(`POST ${url} → ${response.status} ${JSON.stringify(json)}`);
  return json;
}

/** A cycle through the REST API, as a client in the same process would drive it. */
export function httpCycle(baseUrl: string): Cycle {
  const start = `${baseUrl}/api/agent/start`;
  const resume = `${baseUrl}/api/agent/resume`;
  return async () => {
    const paused = await post(start, { query: QUERY, user_id: USER, app: APP });
    expectPaused(paused);
    // Deciding a whole pause over HTTP names it: the decision is bound to what was seen.
    const done = await post(resume, {
      session_id: paused.session_id,
      pause_id: paused.pause_id,
      user_id: USER,
      approved: true,
    });
    expectCompleted(done.status, done.artifacts?.length ?? 0);
  };
}
