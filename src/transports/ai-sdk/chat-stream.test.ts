import { safeValidateTypes } from '@ai-sdk/provider-utils';
import { type UIMessageChunk, uiMessageChunkSchema } from 'ai';
import { describe, expect, it } from 'vitest';
import { HoldpointError } from '../../core/errors.js';
import type { HoldpointRuntime } from '../../runtime/holdpoint-runtime.js';
import type { RunEventSink } from '../../runtime/run-event.js';
import { chatStream } from './chat-stream.js';

/** A runtime whose run reports that it failed with `code`, then throws that error. */
function failingRuntime(code: 'LEASE_LOST' | 'STORE_UNAVAILABLE' | 'RUN_FAILED'): HoldpointRuntime {
  return {
    operations: {
      startRun: async (_request: unknown, _by: unknown, sink?: RunEventSink) => {
        sink?.({
          type: 'run-started',
          sessionId: 's1',
          invocationId: 'inv-1',
          app: 'payments',
          resumed: false,
        });
        sink?.({
          type: 'failed',
          sessionId: 's1',
          invocationId: 'inv-1',
          code,
          message: 'it stopped',
        });
        throw new HoldpointError(code, 'it stopped');
      },
    },
  } as unknown as HoldpointRuntime;
}

async function chunksOf(stream: ReadableStream<UIMessageChunk>): Promise<UIMessageChunk[]> {
  const chunks: UIMessageChunk[] = [];
  for await (const chunk of stream) chunks.push(chunk);
  return chunks;
}

describe('chatStream', () => {
  it.each(['LEASE_LOST', 'STORE_UNAVAILABLE', 'RUN_FAILED'] as const)(
    'a run that fails with %s streams one error, then finish',
    async (code) => {
      const body = {
        id: 'c1',
        messages: [{ id: 'm1', role: 'user' as const, parts: [{ type: 'text', text: 'hi' }] }],
      };
      const chunks = await chunksOf(
        chatStream({
          runtime: failingRuntime(code),
          body,
          intent: { kind: 'message', text: 'hi' },
          caller: { id: 'u', roles: [] },
          mode: 'two-turn',
        }),
      );
      for (const chunk of chunks) {
        const valid = await safeValidateTypes({ value: chunk, schema: uiMessageChunkSchema });
        expect(valid.success).toBe(true);
      }
      expect(chunks.filter((c) => c.type === 'error')).toEqual([
        { type: 'error', errorText: `${code}: it stopped` },
      ]);
      expect(chunks.at(-1)).toMatchObject({ type: 'finish', finishReason: 'error' });
    },
  );
});
