import { performance } from 'node:perf_hooks';
import { percentile } from './measure.js';

/** What one streamed chat took, in ms, each measured on the client. */
export interface ChatTiming {
  /** From sending turn 1 (or the `send` frame) to its first chunk. */
  firstChunkMs: number;
  /** From sending turn 1 to the `tool-approval-request` chunk. */
  approvalRequestMs: number;
  /** From sending the decision (turn 2, or the `decision` frame) to `tool-output-available`. */
  decisionToOutputMs: number;
}

/**
 * One whole chat, start to the completed reply; rejects when it went wrong, and
 * stops (closing what it opened) when `signal` aborts. `slot` (0 … concurrency − 1)
 * tells the chats of one round apart, e.g. to give each its own socket.
 */
export type StreamChat = (chatId: string, slot: number, signal: AbortSignal) => Promise<ChatTiming>;

/** p50 and p99 of one latency, in ms. */
export interface Spread {
  p50Ms: number;
  p99Ms: number;
}

/** Latency statistics of one streaming scenario, run as rounds of concurrent chats. */
export interface StreamSample {
  scenario: string;
  /** Chats in flight at once in every round. */
  concurrency: number;
  rounds: number;
  /** Chats that completed and were timed. */
  chats: number;
  /** Completed chats per second of wall time, over the timed rounds. */
  chatsPerSecond: number;
  firstChunk: Spread;
  approvalRequest: Spread;
  decisionToOutput: Spread;
  /** Chats that failed or stalled, and the first reason seen. */
  failures: number;
  firstFailure?: string;
  /** True when the time budget, or a failed chat, ended the run before the planned rounds. */
  cutShort: boolean;
}

/** How many rounds of how many concurrent chats, and for at most how long. */
export interface StreamPlan {
  concurrency: number;
  warmupRounds: number;
  rounds: number;
  /** No round starts once this much time has gone by (ms, warm-up excluded). */
  budgetMs: number;
  /** Longest one chat may take before it counts as stalled (ms). */
  chatTimeoutMs: number;
}

/** Runs `chat`, aborting it and rejecting once `ms` have passed without an end. */
async function bounded(
  chat: StreamChat,
  chatId: string,
  slot: number,
  ms: number,
): Promise<ChatTiming> {
  const stop = new AbortController();
  const timer = setTimeout(() => stop.abort(new Error(`chat ${chatId} stalled for ${ms} ms`)), ms);
  try {
    return await Promise.race([
      chat(chatId, slot, stop.signal),
      new Promise<never>((_, reject) =>
        stop.signal.addEventListener('abort', () => reject(stop.signal.reason)),
      ),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

interface Round {
  timings: ChatTiming[];
  failures: string[];
  wallMs: number;
}

/** Starts `concurrency` chats at once and waits for every one of them. */
async function round(chat: StreamChat, label: string, plan: StreamPlan): Promise<Round> {
  const started = performance.now();
  const settled = await Promise.allSettled(
    Array.from({ length: plan.concurrency }, (_, i) =>
      bounded(chat, `${label}-${i}`, i, plan.chatTimeoutMs),
    ),
  );
  const wallMs = performance.now() - started;
  const timings: ChatTiming[] = [];
  const failures: string[] = [];
  for (const result of settled) {
    if (result.status === 'fulfilled') timings.push(result.value);
    else failures.push(String(result.reason?.message ?? result.reason));
  }
  return { timings, failures, wallMs };
}

function spread(values: number[]): Spread {
  const sorted = [...values].sort((a, b) => a - b);
  return { p50Ms: percentile(sorted, 50), p99Ms: percentile(sorted, 99) };
}

/**
 * Warms `chat` up, then runs rounds of `concurrency` chats started together, so
 * every latency is one chat among `concurrency` in flight, and chats/s is what
 * the server sustained under that load. The clients share the server's process
 * and event loop, so a latency also holds the wait behind the other chats' work.
 */
export async function measureStreams(
  scenario: string,
  chat: StreamChat,
  plan: StreamPlan,
): Promise<StreamSample> {
  const prefix = `bench-${Date.now().toString(36)}`;
  const failures: string[] = [];
  for (let r = 0; r < plan.warmupRounds; r++) {
    failures.push(...(await round(chat, `${prefix}-w${r}`, plan)).failures);
  }
  const timings: ChatTiming[] = [];
  const deadline = performance.now() + plan.budgetMs;
  let wallMs = 0;
  let rounds = 0;
  // Stalls would only pile up: a round with a failure (warm-up included) ends the scenario.
  while (rounds < plan.rounds && performance.now() < deadline && failures.length === 0) {
    const done = await round(chat, `${prefix}-r${rounds}`, plan);
    timings.push(...done.timings);
    failures.push(...done.failures);
    wallMs += done.wallMs;
    rounds += 1;
  }
  return {
    scenario,
    concurrency: plan.concurrency,
    rounds,
    chats: timings.length,
    chatsPerSecond: wallMs > 0 ? (timings.length * 1000) / wallMs : 0,
    firstChunk: spread(timings.map((t) => t.firstChunkMs)),
    approvalRequest: spread(timings.map((t) => t.approvalRequestMs)),
    decisionToOutput: spread(timings.map((t) => t.decisionToOutputMs)),
    failures: failures.length,
    ...(failures.length > 0 ? { firstFailure: failures[0] } : {}),
    cutShort: rounds < plan.rounds,
  };
}
