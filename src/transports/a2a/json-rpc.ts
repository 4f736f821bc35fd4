import {
  A2A_PROTOCOL_VERSION,
  A2A_VERSION_HEADER,
  formatSSEErrorEvent,
  formatSSEEvent,
  SSE_HEADERS,
} from '@a2a-js/sdk';
import { A2A_LEGACY_PROTOCOL_VERSION } from '@a2a-js/sdk/compat/v0_3';
import { LegacyJsonRpcTransportHandler } from '@a2a-js/sdk/compat/v0_3/server';
import {
  JsonRpcTransportHandler,
  ServerCallContext,
  type User,
  validateVersion,
} from '@a2a-js/sdk/server';
import type { Principal } from '../../core/principal.js';
import { type A2ACall, HoldpointA2AHandler } from './holdpoint-a2a-handler.js';

/** The caller, as the SDK's request context carries it: signed in by Holdpoint. */
class SignedIn implements User {
  constructor(private readonly principal: Principal) {}

  get isAuthenticated(): boolean {
    return true;
  }

  get userName(): string {
    return this.principal.id;
  }
}

/** A JSON-RPC envelope, as the SDK's transport handlers answer. */
export interface JsonRpcEnvelope {
  [field: string]: unknown;
  jsonrpc: string;
  id: string | number | null;
  result?: unknown;
  error?: unknown;
}

/**
 * Answers one A2A JSON-RPC request to an app: A2A 1.0 (`SendMessage`, `GetTask`, …) when
 * the request says `A2A-Version: 1.0`, else 0.3 (`message/send`, `tasks/get`, …), as
 * the SDK's own servers choose. A streaming method answers server-sent events once its
 * first event is out; an error before it is a JSON-RPC error envelope, as any other.
 */
export async function answerJsonRpc(
  call: A2ACall,
  body: unknown,
  requestedVersion: string | null,
): Promise<JsonRpcEnvelope | Response> {
  const handler = new HoldpointA2AHandler(call);
  const legacy = (requestedVersion ?? A2A_LEGACY_PROTOCOL_VERSION) === A2A_LEGACY_PROTOCOL_VERSION;
  const mapError = legacy
    ? LegacyJsonRpcTransportHandler.mapToLegacyJSONRPCError
    : JsonRpcTransportHandler.mapToJSONRPCError;
  const sent = (body as { id?: unknown } | null)?.id;
  const id = typeof sent === 'string' || typeof sent === 'number' ? sent : null;
  const errorEnvelope = (error: unknown): JsonRpcEnvelope => ({
    jsonrpc: '2.0',
    id,
    error: mapError(error),
  });
  const context = new ServerCallContext({
    user: new SignedIn(call.caller),
    requestedVersion: requestedVersion ?? A2A_LEGACY_PROTOCOL_VERSION,
  });
  let answer: JsonRpcEnvelope | AsyncGenerator<JsonRpcEnvelope>;
  try {
    validateVersion(context.requestedVersion, call.card, 'JSONRPC');
    answer = legacy
      ? await new LegacyJsonRpcTransportHandler(handler).handle(
          body as Record<string, unknown>,
          context,
        )
      : await new JsonRpcTransportHandler(handler).handle(body as Record<string, unknown>, context);
  } catch (error) {
    return errorEnvelope(error);
  }
  if (!(Symbol.asyncIterator in answer)) return answer;
  const stream = answer;
  let first: IteratorResult<JsonRpcEnvelope>;
  try {
    first = await stream.next();
  } catch (error) {
    return errorEnvelope(error);
  }
  const encoder = new TextEncoder();
  return new Response(
    new ReadableStream<Uint8Array>({
      async start(controller) {
        const write = (text: string) => controller.enqueue(encoder.encode(text));
        try {
          if (!first.done) write(formatSSEEvent(first.value));
          for await (const envelope of { [Symbol.asyncIterator]: () => stream }) {
            write(formatSSEEvent(envelope));
          }
        } catch (error) {
          write(formatSSEErrorEvent(errorEnvelope(error)));
        }
        controller.close();
      },
      async cancel() {
        // The client left; the run goes on, durably, without it.
        await stream.return(undefined);
      },
    }),
    { headers: SSE_HEADERS },
  );
}

/** The A2A versions each app speaks, newest first. */
export const A2A_VERSIONS = [A2A_PROTOCOL_VERSION, A2A_LEGACY_PROTOCOL_VERSION];

/** The header a client names its A2A version in. */
export { A2A_VERSION_HEADER };
