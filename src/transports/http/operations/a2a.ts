import { AgentCard } from '@a2a-js/sdk';
import { z } from 'zod';
import { HoldpointError } from '../../../core/errors.js';
import { appName, validate } from '../../../core/validate.js';
import type { HoldpointRuntime } from '../../../runtime/holdpoint-runtime.js';
import { agentCardOf } from '../../a2a/agent-card.js';
import { A2A_VERSION_HEADER, answerJsonRpc } from '../../a2a/json-rpc.js';
import { jsonRpcBody, jsonRpcEnvelope } from './json-rpc-body.js';
import { defineOperation, type OperationCall } from './operation.js';

/** The app the path names, its A2A agent card and JSON-RPC endpoint; UNKNOWN_APP otherwise. */
function cardFor(
  runtime: HoldpointRuntime,
  call: Pick<OperationCall<object, object>, 'params' | 'origin' | 'mount'>,
) {
  const name = validate(appName, call.params.app);
  const app = runtime.apps.find((a) => a.name === name);
  if (!app) {
    throw new HoldpointError(
      'UNKNOWN_APP',
      `Unknown app ${name}. Known apps: ${runtime.appNames.join(', ')}.`,
    );
  }
  const url = `${call.origin}${call.mount}/api/a2a/${encodeURIComponent(name)}`;
  return { app: name, card: agentCardOf(app, url) };
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
    act: async ({ runtime, ...call }) => AgentCard.toJSON(cardFor(runtime, call).card),
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
    act: async ({ body, by, runtime, headers, ...call }) => {
      const { app, card } = cardFor(runtime, call);
      return answerJsonRpc(
        { runtime, app, card, caller: by },
        body,
        headers.get(A2A_VERSION_HEADER),
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
