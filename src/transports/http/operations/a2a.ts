import { AgentCard } from '@a2a-js/sdk';
import { z } from 'zod';
import { agentCardOf } from '../../a2a/agent-card.js';
import { A2A_VERSION_HEADER, answerJsonRpc } from '../../a2a/json-rpc.js';
import { jsonRpcBody, jsonRpcEnvelope } from './json-rpc-body.js';
import { defineOperation, type OperationCall } from './operation.js';
import { pathApp } from './path-app.js';

/** The app the path names, with its A2A agent card naming its JSON-RPC endpoint. */
function cardFor({
  runtime,
  params,
  request,
  mount,
}: Pick<OperationCall<object, object>, 'runtime' | 'params' | 'request' | 'mount'>) {
  const app = pathApp(runtime, params);
  const url = `${new URL(request.url).origin}${mount}/api/a2a/${encodeURIComponent(app.name)}`;
  return { app: app.name, card: agentCardOf(app, url) };
}

/** `/api/a2a/:app`: an app as an A2A agent (one per app): its card and its JSON-RPC endpoint. */
export const a2aOperations = [
  defineOperation({
    name: 'getA2aAgentCard',
    method: 'get',
    path: '/api/a2a/:app/.well-known/agent-card.json',
    summary:
      "The app's A2A agent card: its skill and its JSON-RPC endpoint in A2A 1.0 and 0.3 (public, as discovery is).",
    public: true,
    act: async (call) => AgentCard.toJSON(cardFor(call).card),
    answer: z.looseObject({
      name: z.string(),
      description: z.string(),
      supportedInterfaces: z.array(z.looseObject({ url: z.string(), protocolVersion: z.string() })),
    }),
    present: (card) => card as { name: string; description: string; supportedInterfaces: [] },
  }),
  defineOperation({
    name: 'a2aJsonRpc',
    method: 'post',
    path: '/api/a2a/:app',
    summary:
      'A2A JSON-RPC for the app: `message/send` and `message/stream` (1.0: `SendMessage`, `SendStreamingMessage`), `tasks/get`, `tasks/cancel`; each task a session, a pause `input-required`.',
    description:
      "A2A 1.0 when the request says `A2A-Version: 1.0`, else 0.3. A reply's data parts decide the task's approvals as the caller, whom the tool's policy must allow. Errors are JSON-RPC errors (A2A's codes; Holdpoint's in `data[0].metadata.holdpoint_code`); streams are server-sent events (docs/a2a.md).",
    body: jsonRpcBody,
    countsAsRun: true,
    act: async (call) => {
      const { app, card } = cardFor(call);
      return answerJsonRpc(
        { runtime: call.runtime, app, card, caller: call.by },
        call.body,
        call.request.headers.get(A2A_VERSION_HEADER),
      );
    },
    answer: jsonRpcEnvelope,
    present: (envelope) => envelope,
    alsoAnswers: {
      contentType: 'text/event-stream',
      description: 'JSON-RPC envelopes, one per `data:` line, for the streaming methods.',
    },
  }),
];
