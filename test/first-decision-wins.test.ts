import { HttpAgent } from '@ag-ui/client';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { JsonClient, signedInAs } from './support/json-client.js';
import { ServerProcess } from './support/server-process.js';
import { adrApprovalMessage, postChat } from './support/ui-stream.js';

// Issue 36, point 4: one approval offered at once over several doors — the REST API,
// the AI SDK's chat stream, AG-UI — decided from two of them at the same moment, 20
// times, against `holdpoint serve` on the default SQLite store. One decision is recorded
// each time, its audit line names the door it came through, the other door gets
// ALREADY_DECIDED in its own terms, and the payment runs once or never.
vi.setConfig({ testTimeout: 300_000, hookTimeout: 120_000 });

let server: ServerProcess;
beforeAll(async () => {
  server = await ServerProcess.start(['--model', 'rules']);
});
afterAll(async () => server?.kill());

type Door = 'rest' | 'ai-sdk' | 'ag-ui';
/** The channel each door's decisions are recorded with (the REST API's: none). */
const CHANNEL: Record<Door, string | undefined> = {
  rest: undefined,
  'ai-sdk': 'ai-sdk',
  'ag-ui': 'ag-ui',
};
const PAIRS: [Door, Door][] = [
  ['rest', 'ag-ui'],
  ['ag-ui', 'ai-sdk'],
  ['ai-sdk', 'rest'],
];

/** What a door answered: `decided`, or the code of its refusal. */
async function decide(
  door: Door,
  who: string,
  approval: string,
  thread: string,
  approved: boolean,
) {
  const headers = signedInAs(who, ['approver']);
  if (door === 'rest') {
    const { status, body } = await new JsonClient(server.url, {
      user: who,
      roles: ['approver'],
    }).post(`/api/approvals/${approval}`, { approved });
    return status === 200 ? 'decided' : (body.error?.code as string);
  }
  if (door === 'ai-sdk') {
    const turn = await postChat(`${server.url}/api/chat`, {
      id: `chat-${approval}-${who}`,
      userId: who,
      messages: [adrApprovalMessage(approval, approved)],
    });
    const error = turn.chunks.find((c) => c.type === 'error') as { errorText?: string } | undefined;
    return error ? (error.errorText ?? '').split(':')[0] : 'decided';
  }
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
}

describe('the first decision wins on every door', () => {
  it('one approval decided from two protocols at once, 20 times: one decision each time', async () => {
    const ann = new JsonClient(server.url, { user: 'ann', roles: [] });
    const auditor = new JsonClient(server.url, { user: 'auditor', roles: ['admin'] });
    const winners: Record<Door, number> = { rest: 0, 'ai-sdk': 0, 'ag-ui': 0 };
    for (let round = 0; round < 20; round++) {
      const [approving, rejecting] = PAIRS[round % PAIRS.length] as [Door, Door];
      const start = await ann.post('/api/agent/start', {
        query: `Send $${round + 1} to Jiro`,
        app: 'payments',
      });
      expect(start.body.status).toBe('pending_approval');
      const approval: string = start.body.approvals[0].approval_id;
      const thread: string = start.body.session_id;

      const answers = await Promise.all([
        decide(approving, 'maria', approval, thread, true),
        decide(rejecting, 'bob', approval, thread, false),
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
      const session = await ann.get(`/api/sessions/${thread}`);
      expect(session.body.status, where).toBe('idle');
    }
    // Printed, not asserted: which door wins a race is the machine's, not the test's.
    console.log('first decisions by door:', winners);
  });

  it.each(['rest', 'ai-sdk', 'ag-ui'] as Door[])(
    'decided over %s first: every other door answers ALREADY_DECIDED',
    async (first) => {
      const ann = new JsonClient(server.url, { user: 'ann', roles: [] });
      const start = await ann.post('/api/agent/start', {
        query: 'Send $5 to Ana',
        app: 'payments',
      });
      const approval: string = start.body.approvals[0].approval_id;
      const thread: string = start.body.session_id;
      expect(await decide(first, 'maria', approval, thread, true)).toBe('decided');
      for (const other of (['rest', 'ai-sdk', 'ag-ui'] as Door[]).filter((d) => d !== first)) {
        expect([other, await decide(other, 'bob', approval, thread, false)]).toEqual([
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
