import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { SendMessageRequest } from '@a2a-js/sdk';
import { ClientFactory, ClientFactoryOptions, JsonRpcTransportFactory } from '@a2a-js/sdk/client';
import { HttpAgent } from '@ag-ui/client';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { decisionLinks } from '../src/runtime/notify/decision-links.js';
import { ChatSocketClient } from './support/chat-socket-client.js';
import { JsonClient, signedInAs } from './support/json-client.js';
import { ServerProcess } from './support/server-process.js';
import { slackSignedHeaders } from './support/slack-signed.js';
import { adrApprovalMessage, postChat } from './support/ui-stream.js';

// Issue 36, point 4: one approval offered at once over several doors — the REST API,
// the AI SDK's chat streams (SSE, and the WebSocket's decision frame), AG-UI, A2A, MCP (a form its client is asked), Slack's buttons
// and a signed decision link (what email carries) — decided from two of them at the same moment, 20
// times, against `holdpoint serve` on the default SQLite store. One decision is recorded
// each time, its audit line names the door it came through, the other door gets
// ALREADY_DECIDED in its own terms, and the payment runs once or never.
vi.setConfig({ testTimeout: 300_000, hookTimeout: 120_000 });

/** Where people reach the server, as its links say; and the key they are signed with. */
const PUBLIC_URL = 'https://holdpoint.example.com';
const LINK_SECRET = 'first-decision-wins-link-secret-0123456789';
const links = decisionLinks({ baseUrl: PUBLIC_URL, secret: LINK_SECRET });
/** Slack's signing secret: button presses are signed with it, as Slack signs them. */
const SLACK_SECRET = 'first-decision-wins-slack-secret';

/** Who holds the approver role, as the links' approvers are known (a link proves the person). */
const directory = join(mkdtempSync(join(tmpdir(), 'hp-first-decision-')), 'directory.json');
writeFileSync(
  directory,
  JSON.stringify({
    users: { maria: { email: 'maria@example.com' }, bob: { email: 'bob@example.com' } },
    roles: { approver: { email: 'approvers@example.com' } },
    members: { approver: ['maria', 'bob'] },
    slackUsers: {
      UMARIA: { id: 'maria', roles: ['approver'] },
      UBOB: { id: 'bob', roles: ['approver'] },
    },
  }),
);

let server: ServerProcess;
beforeAll(async () => {
  server = await ServerProcess.start([
    '--notify-directory',
    directory,
    '--model',
    'rules',
    '--public-url',
    PUBLIC_URL,
    '--link-secret',
    LINK_SECRET,
    // Links are made for people a channel reaches: one that is never reached will do.
    '--smtp-url',
    'smtp://127.0.0.1:1',
    // Slack's buttons: its Web API is never reached either; presses are posted here.
    '--slack-token',
    'xoxb-first-decision-wins',
    '--slack-signing-secret',
    SLACK_SECRET,
    '--slack-api-url',
    'http://127.0.0.1:1/api/',
  ]);
});
afterAll(async () => {
  await server?.kill();
  rmSync(dirname(directory), { recursive: true, force: true });
});

type Door = 'rest' | 'ai-sdk' | 'ai-sdk-ws' | 'ag-ui' | 'a2a' | 'mcp' | 'link' | 'slack';
const DOORS: Door[] = ['rest', 'ai-sdk', 'ai-sdk-ws', 'ag-ui', 'a2a', 'mcp', 'link', 'slack'];
/** The channel each door's decisions are recorded with (the REST API's: none). */
const CHANNEL: Record<Door, string | undefined> = {
  rest: undefined,
  'ai-sdk': 'chat',
  'ai-sdk-ws': 'chat',
  'ag-ui': 'ag-ui',
  a2a: 'a2a',
  mcp: 'mcp',
  link: 'link',
  slack: 'slack',
};
/** Who approves and who rejects, round by round: each door against two others. */
const PAIRS: [Door, Door][] = [
  ['rest', 'ag-ui'],
  ['ag-ui', 'a2a'],
  ['a2a', 'ai-sdk'],
  ['ai-sdk', 'rest'],
  ['rest', 'a2a'],
  ['mcp', 'ag-ui'],
  ['a2a', 'mcp'],
  ['link', 'rest'],
  ['ag-ui', 'link'],
  ['slack', 'a2a'],
  ['rest', 'slack'],
  ['ai-sdk-ws', 'ag-ui'],
  ['a2a', 'ai-sdk-ws'],
];

/** How a door decides: answers `decided`, or the code of its refusal. */
type Decide = (approval: string, thread: string, approved: boolean) => Promise<string | undefined>;

/**
 * `who`'s client of `door`, made before any race (an A2A client reads the agent card
 * first), so that the race is between the decisions only.
 */
async function door(kind: Door, who: string): Promise<Decide> {
  const headers = signedInAs(who, ['approver']);
  if (kind === 'rest') {
    const rest = new JsonClient(server.url, { user: who, roles: ['approver'] });
    return async (approval, _thread, approved) => {
      const { status, body } = await rest.post(`/api/approvals/${approval}`, { approved });
      return status === 200 ? 'decided' : (body.error?.code as string);
    };
  }
  if (kind === 'ai-sdk') {
    return async (approval, _thread, approved) => {
      const turn = await postChat(`${server.url}/api/chat`, {
        id: `chat-${approval}-${who}`,
        userId: who,
        messages: [adrApprovalMessage(approval, approved)],
      });
      const error = turn.chunks.find((c) => c.type === 'error') as
        | { errorText?: string }
        | undefined;
      return error ? (error.errorText ?? '').split(':')[0] : 'decided';
    };
  }
  if (kind === 'a2a') {
    const fetchImpl: typeof fetch = (input, init) => {
      const signed = new Headers(init?.headers);
      for (const [name, value] of Object.entries(headers)) signed.set(name, value);
      return fetch(input, { ...init, headers: signed });
    };
    const options = ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
      transports: [new JsonRpcTransportFactory({ fetchImpl })],
    });
    const a2a = await new ClientFactory(options).createFromUrl(
      `${server.url}/api/a2a/payments/.well-known/agent-card.json`,
      '',
    );
    return (approval, thread, approved) =>
      a2a
        .sendMessage(
          SendMessageRequest.fromJSON({
            message: {
              messageId: `reply-${approval}-${who}`,
              role: 'ROLE_USER',
              taskId: thread,
              parts: [{ data: { approvalId: approval, approved } }],
            },
          }),
        )
        .then(
          () => 'decided',
          (error: { data?: { metadata?: Record<string, string> }[] }) =>
            error.data?.[0]?.metadata?.holdpoint_code,
        );
  }
  if (kind === 'ai-sdk-ws') {
    // The chat socket's decision frame (the web UI's continuous chat decides through it).
    const socket = await ChatSocketClient.connect(
      `${server.url.replace('http', 'ws')}/api/chat/ws`,
      headers,
    );
    return async (approval, _thread, approved) => {
      const frame = await socket.decide({ approvalId: approval, approved });
      socket.socket.close();
      return frame.type === 'decision-result' ? 'decided' : (frame.code as string);
    };
  }
  if (kind === 'slack') {
    // A button pressed in the Slack message, as Slack posts it, signed (a rejection without
    // Slack's trigger to open the reason's modal is decided at once).
    return async (approval, _thread, approved) => {
      const { body: seen } = await new JsonClient(server.url, {
        user: 'auditor',
        roles: ['admin'],
      }).get(`/api/approvals/${approval}`);
      const payload = {
        type: 'block_actions',
        user: { id: who === 'maria' ? 'UMARIA' : 'UBOB', team_id: 'T1' },
        actions: [
          {
            type: 'button',
            block_id: 'holdpoint_decision',
            action_id: approved ? 'holdpoint_approve' : 'holdpoint_reject',
            value: `${approval}|${seen.args_hash}`,
          },
        ],
      };
      const body = new URLSearchParams({ payload: JSON.stringify(payload) }).toString();
      const response = await fetch(`${server.url}/slack/interactivity`, {
        method: 'POST',
        headers: slackSignedHeaders(body, SLACK_SECRET, String(Math.floor(Date.now() / 1000))),
        body,
      });
      const { text } = (await response.json()) as { text: string };
      if (text.startsWith('You ')) return 'decided';
      return text === 'This approval was already decided.' ? 'ALREADY_DECIDED' : text;
    };
  }
  if (kind === 'link') {
    // The person's own signed link, as an email carries it, posted from its page.
    return async (approval, _thread, approved) => {
      const { body } = await new JsonClient(server.url, { user: 'auditor', roles: ['admin'] }).get(
        `/api/approvals/${approval}`,
      );
      const link = links.decisionLinkTo(
        {
          approvalId: approval,
          argsHash: body.args_hash,
          expiresAt: Date.parse(body.expires_at),
        },
        who,
      );
      const response = await fetch(`${server.url}${new URL(link ?? '').pathname}`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', origin: PUBLIC_URL },
        body: new URLSearchParams({ decision: approved ? 'approve' : 'reject' }).toString(),
      });
      await response.text();
      return response.status === 200
        ? 'decided'
        : response.status === 409
          ? 'ALREADY_DECIDED'
          : `${response.status}`;
    };
  }
  if (kind === 'mcp') {
    // A client that takes forms: called about the session, it is asked what its user may
    // decide, and answers. Not asked at all, it was told the run's outcome instead: the
    // approval was decided elsewhere first.
    let asked = false;
    const answer = { approved: true };
    const client = new Client(
      { name: who, version: '1.0.0' },
      { capabilities: { elicitation: { form: {} } } },
    );
    client.setRequestHandler(ElicitRequestSchema, async () => {
      asked = true;
      return { action: 'accept', content: answer };
    });
    // An admin besides: asked about a session after someone else decided, a decider who
    // is no longer asked may not read it (FORBIDDEN); an admin is told its outcome.
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${server.url}/api/mcp/payments`), {
        requestInit: { headers: signedInAs(who, ['approver', 'admin']) },
      }),
    );
    return async (_approval, thread, approved) => {
      answer.approved = approved;
      const result = await client.callTool({ name: 'payments', arguments: { session_id: thread } });
      await client.close();
      if (result.isError) return JSON.stringify(result.content).match(/([A-Z_]+):/)?.[1];
      return asked ? 'decided' : 'ALREADY_DECIDED';
    };
  }
  return async (approval, thread, approved) => {
    const client = new HttpAgent({
      url: `${server.url}/api/ag-ui/payments`,
      threadId: thread,
      headers,
    });
    let last: { type: string; code?: string } | undefined;
    await client.runAgent(
      { resume: [{ interruptId: approval, status: 'resolved', payload: { approved } }] },
      {
        onEvent: ({ event }) => {
          last = event as typeof last;
        },
      },
    );
    return last?.type === 'RUN_ERROR' ? last.code : 'decided';
  };
}

describe('the first decision wins on every door', () => {
  it('one approval decided from two protocols at once, 20 times: one decision each time', async () => {
    const ann = new JsonClient(server.url, { user: 'ann', roles: [] });
    const auditor = new JsonClient(server.url, { user: 'auditor', roles: ['admin'] });
    const winners: Record<Door, number> = {
      rest: 0,
      'ai-sdk': 0,
      'ai-sdk-ws': 0,
      'ag-ui': 0,
      a2a: 0,
      mcp: 0,
      link: 0,
      slack: 0,
    };
    for (let round = 0; round < 20; round++) {
      const [approving, rejecting] = PAIRS[round % PAIRS.length] as [Door, Door];
      const start = await ann.post('/api/agent/start', {
        query: `Send $${round + 1} to Jiro`,
        app: 'payments',
      });
      expect(start.body.status).toBe('pending_approval');
      const approval: string = start.body.approvals[0].approval_id;
      const thread: string = start.body.session_id;

      const [approve, reject] = await Promise.all([
        door(approving, 'maria'),
        door(rejecting, 'bob'),
      ]);
      const answers = await Promise.all([
        approve(approval, thread, true),
        reject(approval, thread, false),
      ]);
      const where = `round ${round}: ${approving} approves, ${rejecting} rejects → ${answers}`;
      expect(
        answers.filter((a) => a === 'decided'),
        where,
      ).toHaveLength(1);
      expect(
        answers.filter((a) => a !== 'decided'),
        where,
      ).toEqual(['ALREADY_DECIDED']);

      // A door may answer once the decision is stored, before the run it resumed ends
      // (Slack answers within its three seconds): the run is read once it has.
      await expect
        .poll(async () => (await ann.get(`/api/sessions/${thread}`)).body.status, {
          timeout: 30_000,
        })
        .toBe('idle');
      const audit = await auditor.get(`/api/audit?session_id=${thread}`);
      const lines: { action: string; approved?: boolean; channel?: string }[] = audit.body.entries;
      const decided = lines.filter((l) => l.action === 'decided');
      expect(decided, where).toHaveLength(1);
      const won = answers[0] === 'decided' ? approving : rejecting;
      winners[won]++;
      expect(decided[0]?.channel, where).toBe(CHANNEL[won]);
      expect(decided[0]?.approved, where).toBe(won === approving);
      const executed = lines.filter((l) => l.action === 'executed');
      expect(executed, where).toHaveLength(won === approving ? 1 : 0);
    }
    // Printed, not asserted: which door wins a race is the machine's, not the test's.
    console.log('first decisions by door:', winners);
  });

  it.each(DOORS)(
    'decided over %s first: every other door answers ALREADY_DECIDED',
    async (first) => {
      const ann = new JsonClient(server.url, { user: 'ann', roles: [] });
      const start = await ann.post('/api/agent/start', {
        query: 'Send $5 to Ana',
        app: 'payments',
      });
      const approval: string = start.body.approvals[0].approval_id;
      const thread: string = start.body.session_id;
      expect(await (await door(first, 'maria'))(approval, thread, true)).toBe('decided');
      for (const other of DOORS.filter((d) => d !== first)) {
        expect([other, await (await door(other, 'bob'))(approval, thread, false)]).toEqual([
          other,
          'ALREADY_DECIDED',
        ]);
      }
      const audit = await new JsonClient(server.url, { user: 'auditor', roles: ['admin'] }).get(
        `/api/audit?session_id=${thread}`,
      );
      const decided = audit.body.entries.filter((l: { action: string }) => l.action === 'decided');
      expect(decided).toEqual([expect.objectContaining({ approved: true, actor: 'maria' })]);
      expect(decided[0].channel).toBe(CHANNEL[first]);
    },
  );
});
