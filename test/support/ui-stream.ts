import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { safeValidateTypes } from '@ai-sdk/provider-utils';
import { readUIMessageStream, type UIMessage, type UIMessageChunk, uiMessageChunkSchema } from 'ai';
import { expect } from 'vitest';
import { signedInAs, TESTER, TESTER_ROLES } from './json-client.js';

/** The SSE response of one chat turn, as raw `data:` payloads. */
export interface SseTurn {
  status: number;
  headers: Headers;
  chunks: UIMessageChunk[];
  /** Whether the stream ended with `data: [DONE]`. */
  done: boolean;
}

/** Parses an SSE body into UI message chunks. */
export function parseSse(text: string): { chunks: UIMessageChunk[]; done: boolean } {
  const data = text
    .split('\n\n')
    .map((block) => block.trim())
    .filter((block) => block.startsWith('data: '))
    .map((block) => block.slice('data: '.length));
  const done = data.at(-1) === '[DONE]';
  return { chunks: data.filter((d) => d !== '[DONE]').map((d) => JSON.parse(d)), done };
}

/** POSTs a chat body, signed in as the `userId` it names (else as TESTER), and reads the whole SSE answer. */
export async function postChat(url: string, body: unknown): Promise<SseTurn> {
  const userId = (body as { userId?: unknown } | null)?.userId;
  const response = await fetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      ...(typeof userId === 'string' ? signedInAs(userId, TESTER_ROLES) : TESTER),
    },
    body: JSON.stringify(body),
  });
  const { chunks, done } = parseSse(await response.text());
  return { status: response.status, headers: response.headers, chunks, done };
}

/** Validates every chunk with the AI SDK's own schema; returns the failures. */
export async function invalidChunks(chunks: unknown[]): Promise<string[]> {
  const failures: string[] = [];
  for (const chunk of chunks) {
    const result = await safeValidateTypes({ value: chunk, schema: uiMessageChunkSchema });
    if (!result.success) failures.push(`${JSON.stringify(chunk)}: ${result.error.message}`);
  }
  return failures;
}

/** Replays chunks through `readUIMessageStream` and returns the final UI message. */
export async function finalMessage(
  chunks: UIMessageChunk[],
  message?: UIMessage,
): Promise<UIMessage> {
  const stream = new ReadableStream<UIMessageChunk>({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(chunk);
      controller.close();
    },
  });
  let last: UIMessage | undefined;
  for await (const m of readUIMessageStream({ stream, message, terminateOnError: true })) last = m;
  if (!last) throw new Error('the stream produced no message');
  return last;
}

const VOLATILE: [RegExp, string][] = [
  [/data:image\/png;base64,[A-Za-z0-9+/=]+/g, 'png'],
  [/TXN-[0-9A-F]{10}/g, 'txn'],
  [/txt-[A-Za-z0-9_-]{8}-\d+/g, 'text'],
  [/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z/g, 'time'],
  [
    /(?:adk-|inv-|msg-|pause-)?[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}(?:-\d+)?/g,
    'id',
  ],
];

/** Chunks with ids, times and image data replaced by stable placeholders (`<id-1>`, …). */
export function normalize(chunks: unknown[]): unknown[] {
  const seen = new Map<string, string>();
  let json = JSON.stringify(chunks);
  for (const [pattern, label] of VOLATILE) {
    json = json.replace(pattern, (match) => {
      const key = `${label}:${match}`;
      if (!seen.has(key))
        seen.set(
          key,
          `<${label}-${[...seen.keys()].filter((k) => k.startsWith(`${label}:`)).length + 1}>`,
        );
      return seen.get(key) as string;
    });
  }
  return JSON.parse(json);
}

/**
 * The golden file for `name`: written when missing or when UPDATE_FIXTURES=1,
 * otherwise read, so a test compares against what was reviewed.
 */
export function golden(path: string, actual: unknown): unknown {
  if (process.env.UPDATE_FIXTURES === '1' || !existsSync(path)) {
    if (process.env.CI) throw new Error(`missing golden fixture ${path}`);
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, `${JSON.stringify(actual, null, 2)}\n`);
  }
  return JSON.parse(readFileSync(path, 'utf8'));
}

/** The fields of a tool part the tests read. */
export interface ToolPart {
  type: string;
  toolCallId: string;
  state: string;
  input?: unknown;
  output?: unknown;
  approval?: { id: string; approved?: boolean; reason?: string };
}

/** The tool parts of a UI message. */
export function toolParts(message: UIMessage): ToolPart[] {
  return message.parts.filter((p) => p.type.startsWith('tool-')) as unknown as ToolPart[];
}

/** The text of a UI message. */
export function messageText(message: UIMessage): string {
  return message.parts.map((p) => (p.type === 'text' ? p.text : '')).join('');
}

/** A user message as the client sends it. */
export function userMessage(words: string, id = 'u1'): UIMessage {
  return { id, role: 'user', parts: [{ type: 'text', text: words }] };
}

/** Every chunk validates with the SDK's schema and the stream matches its golden file. */
export async function expectGoldenStream(chunks: UIMessageChunk[], path: string): Promise<void> {
  expect(await invalidChunks(chunks)).toEqual([]);
  const normalized = normalize(chunks);
  expect(normalized).toEqual(golden(path, normalized));
}

/**
 * Seed 001's (the ADR's) `approvalMessage`, exactly as it writes it: no message `id`,
 * no `input`, the confirmation's id as the tool call's.
 */
export function adrApprovalMessage(confirmationId: string, approved = true): UIMessage {
  const approvalMessage = {
    role: 'user',
    parts: [
      {
        type: 'tool-adk_request_confirmation',
        toolCallId: confirmationId,
        state: 'approval-responded',
        approval: {
          id: confirmationId,
          approved,
        },
      },
    ],
  };
  return approvalMessage as unknown as UIMessage;
}
