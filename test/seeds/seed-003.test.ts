import { InMemoryMemoryService } from '@google/adk';
import {
  createHoldpoint,
  type Holdpoint,
  type PendingOutcome,
  type RunOutcome,
  redisStore,
} from 'holdpoint';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { knowledgeAssistant } from '../../examples/knowledge-assistant/app.js';
import {
  FIXTURE_TEXT,
  FixtureServer,
} from '../../examples/knowledge-assistant/fixture-server.test-support.js';
import {
  DOCUMENT_AGENT,
  DOMAIN_AGENT,
  ROOT_AGENT,
  TOOLS,
} from '../../examples/knowledge-assistant/names.js';
import {
  handOffs,
  SCRIPTED_MODEL,
  script,
} from '../../examples/knowledge-assistant/scripted-model.test-support.js';
import type { KnowledgeSettings } from '../../examples/knowledge-assistant/settings.js';
import { RedisScratch, TEST_REDIS_URL } from '../../src/store/redis/redis-scratch.test-support.js';

// Seed 003, both sequence diagrams step by step: root → domain lifecycle → root, and
// root → document processor → root, with session.state asserted after every hand-off.
// On the offline rules model (memory and Redis stores), then on a model that stands in
// for Gemini, where the prettifier, the relevance check and the fact extractor ask it.

const scratch = new RedisScratch();
let fixtures: FixtureServer;
const instances: Holdpoint[] = [];

beforeAll(async () => {
  fixtures = await FixtureServer.start();
});
afterAll(async () => {
  for (const holdpoint of instances) await holdpoint.close();
  await fixtures.stop();
  await scratch.cleanup();
});

interface Setup {
  store: 'memory' | 'redis';
  model: string;
  settings?: Partial<KnowledgeSettings>;
}

/** A Holdpoint serving the knowledge assistant, and the memory its picked facts go to. */
function assistant({ store, model, settings }: Setup) {
  const memory = new InMemoryMemoryService();
  const holdpoint = createHoldpoint({
    apps: [
      knowledgeAssistant({
        // The fixtures are served on this machine.
        allowPrivateNetworks: true,
        ...settings,
      }),
    ],
    model,
    memoryService: memory,
    sweepIntervalSeconds: false,
    ...(store === 'redis'
      ? { store: redisStore({ url: TEST_REDIS_URL, keyPrefix: scratch.prefix }) }
      : {}),
  });
  instances.push(holdpoint);
  return { holdpoint, memory };
}

function completed(outcome: RunOutcome): string {
  if (outcome.status !== 'completed') throw new Error(`not completed: ${JSON.stringify(outcome)}`);
  return outcome.result;
}

function paused(outcome: RunOutcome, tool: string): PendingOutcome {
  if (outcome.status !== 'pending_approval') {
    throw new Error(`not paused: ${JSON.stringify(outcome)}`);
  }
  expect(outcome.approvals.map((a) => a.toolName)).toEqual([tool]);
  return outcome;
}

/** One user's dialog with the assistant: one session, as the seed's session is. */
class Dialog {
  sessionId?: string;
  readonly user = `user-${Math.random().toString(36).slice(2, 8)}`;
  constructor(private readonly holdpoint: Holdpoint) {}

  async say(query: string): Promise<RunOutcome> {
    const outcome = await this.holdpoint.start({
      userId: this.user,
      query,
      sessionId: this.sessionId,
    });
    this.sessionId = outcome.sessionId;
    return outcome;
  }

  /** A person answers the pending `input` approval with `payload`. */
  answer(pause: PendingOutcome, payload: unknown): Promise<RunOutcome> {
    return this.holdpoint.resume({
      sessionId: pause.sessionId,
      decidedBy: this.user,
      decisions: [{ approvalId: pause.approvals[0]?.approvalId ?? '', approved: true, payload }],
    });
  }

  async state(): Promise<Record<string, unknown>> {
    const { view } = await this.holdpoint.sessions.history(this.sessionId ?? '');
    return view.state;
  }
}

const RUST_DRAFT = 'rust programming: ownership, borrowing and lifetimes in rust';

describe.each(['memory', 'redis'] as const)('seed 003 on the rules model (%s store)', (store) => {
  const { holdpoint, memory } = assistant({ store, model: 'rules' });

  /** The user's identity as state keeps it once they gave their name. */
  function who(dialog: Dialog) {
    return { user_id: dialog.user, user_name: 'Ann', name_attempts: 0 };
  }

  /** A dialog in which Ann gave her name, asserted from its first turn. */
  async function annNamed(): Promise<Dialog> {
    const dialog = new Dialog(holdpoint);
    expect(completed(await dialog.say('hello'))).toMatch(/What is your name\?$/);
    expect(await dialog.state()).toEqual({ name_attempts: 0 });
    expect(completed(await dialog.say('My name is Ann'))).toMatch(/^Nice to meet you, Ann!/);
    expect(await dialog.state()).toEqual(who(dialog));
    return dialog;
  }

  it('counts refused names from 0 in name_attempts', async () => {
    const dialog = new Dialog(holdpoint);
    await dialog.say('hi');
    expect(await dialog.state()).toEqual({ name_attempts: 0 });
    expect(completed(await dialog.say('42!'))).toMatch(/does not look like a name.*2 attempt/);
    expect(await dialog.state()).toEqual({ name_attempts: 1 });
    expect(completed(await dialog.say('Ann'))).toMatch(/^Nice to meet you, Ann!/);
    expect(await dialog.state()).toEqual({ ...who(dialog), name_attempts: 1 });
  });

  it('agent_root ⇄ subagent_domain_lifecycle: create, the review loop, approve', async () => {
    const dialog = await annNamed();
    // agent_root writes {intent} ({domain_id} none for a create) and delegates; the
    // domain lifecycle reads them and asks for the description.
    expect(completed(await dialog.say('Create a domain'))).toMatch(
      /^Describe the knowledge domain/,
    );
    const handedOver = {
      ...who(dialog),
      intent: 'create',
      domain_id: null,
      processed_intent: null,
    };
    expect(await dialog.state()).toEqual(handedOver);

    // {domain_draft} → prettifier → suggested to the user, who corrects it: the loop.
    const first = paused(await dialog.say('bread baking'), TOOLS.reviewDraft);
    expect(first.approvals[0]?.args).toMatchObject({ name: 'Bread Baking' });
    expect(await dialog.state()).toEqual(handedOver);
    const second = paused(await dialog.answer(first, { item: RUST_DRAFT }), TOOLS.reviewDraft);
    expect(second.approvals[0]?.args).toMatchObject({
      name: 'Rust Programming',
      description: 'Ownership, borrowing and lifetimes in rust.',
      keywords: ['rust', 'programming', 'ownership', 'borrowing', 'lifetimes'],
    });
    // The draft is never kept in state.
    expect(await dialog.state()).toEqual(handedOver);

    // Approved: saved, {intent}/{domain_id} cleared and the intent marked processed,
    // the user told, and agent_root lists the domains.
    expect(completed(await dialog.answer(second, { item: 'Approve' }))).toBe(
      'Domain d-1 is saved.\n\nYour knowledge domains:\n' +
        '- d-1: Rust Programming (rust, programming, ownership, borrowing, lifetimes)',
    );
    expect(await dialog.state()).toEqual({
      ...who(dialog),
      intent: null,
      domain_id: null,
      processed_intent: { intent: 'create', domain_id: 'd-1', status: 'processed_successful' },
      'user:domains': [
        expect.objectContaining({ domain_id: 'd-1', name: 'Rust Programming', active: true }),
      ],
    });
  });

  it('agent_root ⇄ subagent_domain_lifecycle: update shows the domain; Cancel, then cancel in the loop', async () => {
    const dialog = await annNamed();
    await dialog.say('Create a domain');
    const review = paused(await dialog.say(RUST_DRAFT), TOOLS.reviewDraft);
    completed(await dialog.answer(review, { action: 'approve' }));
    const domains = (await dialog.state())['user:domains'];

    // Update: agent_root validated d-1 (the user's own); the domain lifecycle fetches its
    // details and shows them.
    expect(completed(await dialog.say('Update domain d-1'))).toBe(
      'Currently d-1 is "Rust Programming": Ownership, borrowing and lifetimes in rust. ' +
        'Keywords: rust, programming, ownership, borrowing, lifetimes.\n' +
        'Describe the knowledge domain in a few words (or say "cancel").',
    );
    const updating = {
      ...who(dialog),
      intent: 'update',
      domain_id: 'd-1',
      processed_intent: null,
      'user:domains': domains,
    };
    expect(await dialog.state()).toEqual(updating);

    // `Cancel` instead of a description: told, state cleared, back at agent_root.
    expect(completed(await dialog.say('Cancel'))).toBe(
      'You asked to cancel, so nothing was changed. Handing you back.\n\n' +
        'Your knowledge domains:\n' +
        '- d-1: Rust Programming (rust, programming, ownership, borrowing, lifetimes)',
    );
    const cleared = { ...updating, intent: null, domain_id: null };
    expect(await dialog.state()).toEqual(cleared);

    // Cancel inside the review loop.
    await dialog.say('Update domain d-1');
    expect(await dialog.state()).toEqual(updating);
    const loop = paused(await dialog.say('Rust: fearless concurrency'), TOOLS.reviewDraft);
    expect(completed(await dialog.answer(loop, { item: 'Cancel' }))).toMatch(
      /^You asked to cancel, so nothing was changed\. Handing you back\.\n\nYour knowledge domains:/,
    );
    expect(await dialog.state()).toEqual(cleared);
  });

  it('agent_root ⇄ subagent_document_processor: a PDF, facts picked and saved to memory', async () => {
    const dialog = await annNamed();
    await dialog.say('Create a domain');
    completed(
      await dialog.answer(paused(await dialog.say(RUST_DRAFT), TOOLS.reviewDraft), {
        item: 'Approve',
      }),
    );
    const before = await dialog.state();

    // agent_root writes {url} (the first link) and delegates; the processor reads it,
    // writes {url_type}, rates the text per domain, extracts facts and asks the user.
    const url = `${fixtures.url}/docs/rust.pdf`;
    const pick = paused(
      await dialog.say(`Please read ${url} and https://x.test/second`),
      TOOLS.pickFacts,
    );
    expect(pick.approvals[0]?.args).toMatchObject({
      prompt: 'Your link is relevant to Rust Programming. Which facts should be saved?',
      facts: [
        { fact_id: 'f1', domain_id: 'd-1', fact: FIXTURE_TEXT.pdf[0] },
        { fact_id: 'f2', domain_id: 'd-1', fact: FIXTURE_TEXT.pdf[1] },
      ],
    });
    expect(await dialog.state()).toEqual({ ...before, url, url_type: 'pdf' });

    // The user picks f2: saved for {user_id},{domain_id},{source_url}; {url} marked
    // processed with its result; back at agent_root.
    expect(completed(await dialog.answer(pick, { picked: ['f2'] }))).toMatch(
      new RegExp(`^Saved 1 fact\\(s\\) to your memory\\.\n\nFinished ${url}: saved 1 fact\\(s\\)`),
    );
    expect(await dialog.state()).toEqual({
      ...before,
      url: null,
      url_type: 'pdf',
      processed_url: url,
      url_result: 'saved 1 fact(s)',
    });
    const found = await memory.searchMemory({
      appName: 'knowledge-assistant',
      userId: dialog.user,
      query: 'borrow checker',
    });
    expect(found.memories.map((m) => m.content.parts?.[0]?.text)).toEqual([FIXTURE_TEXT.pdf[1]]);
  });

  it('agent_root ⇄ subagent_document_processor: no relevant domain, no fact picked, an unreadable link', async () => {
    const dialog = await annNamed();
    await dialog.say('Create a domain');
    completed(
      await dialog.answer(paused(await dialog.say(RUST_DRAFT), TOOLS.reviewDraft), {
        item: 'Approve',
      }),
    );
    const before = await dialog.state();

    const unrelated = `${fixtures.url}/blog/sourdough`;
    expect(completed(await dialog.say(unrelated))).toMatch(
      new RegExp(
        `^Your link does not correspond to any of your knowledge domains\\.\n\nFinished ${unrelated}: no relevant domain`,
      ),
    );
    expect(await dialog.state()).toEqual({
      ...before,
      url: null,
      url_type: 'page',
      processed_url: unrelated,
      url_result: 'no relevant domain',
    });

    const page = `${fixtures.url}/blog/lifetimes`;
    const pick = paused(await dialog.say(page), TOOLS.pickFacts);
    expect(await dialog.state()).toMatchObject({ url: page, url_type: 'page' });
    expect(completed(await dialog.answer(pick, { item: 'none' }))).toMatch(
      new RegExp(
        `^Nothing was saved: no facts were picked\\.\n\nFinished ${page}: no facts picked`,
      ),
    );
    expect(await dialog.state()).toMatchObject({
      url: null,
      processed_url: page,
      url_result: 'no facts picked',
    });

    const missing = `${fixtures.url}/missing.pdf`;
    expect(completed(await dialog.say(missing))).toMatch(/^I could not process the link: /);
    expect(await dialog.state()).toMatchObject({
      url: null,
      url_type: 'pdf',
      processed_url: missing,
      url_result: expect.stringMatching(/^error: .*answered 404/),
    });
  });
});

describe('seed 003: an intent processed with an error', () => {
  it('clears intent and domain_id and marks the intent processed_with_error', async () => {
    const { holdpoint } = assistant({
      store: 'memory',
      model: 'rules',
      settings: { maxDomains: 1 },
    });
    const dialog = new Dialog(holdpoint);
    await dialog.say('My name is Ann');
    await dialog.say('Create a domain');
    completed(
      await dialog.answer(paused(await dialog.say(RUST_DRAFT), TOOLS.reviewDraft), {
        item: 'Approve',
      }),
    );
    await dialog.say('Create a domain');
    const review = paused(await dialog.say('bread baking'), TOOLS.reviewDraft);
    expect(completed(await dialog.answer(review, { item: 'Approve' }))).toBe(
      'Creating the domain failed: You already have 1 domain(s), the most you may have.\n\n' +
        'Your knowledge domains:\n' +
        '- d-1: Rust Programming (rust, programming, ownership, borrowing, lifetimes)',
    );
    expect(await dialog.state()).toMatchObject({
      intent: null,
      domain_id: null,
      processed_intent: {
        intent: 'create',
        domain_id: null,
        status: 'processed_with_error',
        error: 'You already have 1 domain(s), the most you may have.',
      },
      'user:domains': [expect.objectContaining({ domain_id: 'd-1' })],
    });
  });
});

describe.each(['memory', 'redis'] as const)(
  'seed 003 with a real model configured (a scripted stand-in for Gemini; %s store)',
  (store) => {
    const { holdpoint, memory } = assistant({ store, model: SCRIPTED_MODEL });

    /** What "Gemini" answers the tools: clearly not what the offline heuristics would. */
    function gemini(task: string, input: Record<string, unknown>): unknown {
      if (task === 'prettify') {
        return {
          name: 'Systems Programming in Rust',
          description: 'How Rust keeps memory safe: ownership, borrowing and lifetimes.',
          keywords: ['Rust', 'ownership', 'borrow checker', 'Rust'],
        };
      }
      const about = String(input.parsed_text).includes('borrow checker');
      if (task === 'relevance') {
        return about
          ? { relevance_level: 0.85, relevance_grounding: ['borrow checker', 'ownership rules'] }
          : { relevance_level: 0.05, relevance_grounding: [] };
      }
      return {
        facts: [
          { fact: 'Rust manages memory through ownership, with no garbage collector.' },
          { fact: 'Borrowing rules are checked when the program is compiled.' },
        ],
      };
    }

    it('walks both diagrams: the tools ask the model and use its answers; state at every hand-off', async () => {
      script.reset(gemini);
      const dialog = new Dialog(holdpoint);
      await dialog.say('My name is Ann');
      const named = { user_id: dialog.user, user_name: 'Ann', name_attempts: 0 };

      // Diagram 1: root → domain lifecycle, the prettifier asks the model.
      await dialog.say('Create a domain');
      const review = paused(await dialog.say(RUST_DRAFT), TOOLS.reviewDraft);
      expect(script.asks.map((a) => [a.task, a.input])).toEqual([
        ['prettify', { domain_draft: RUST_DRAFT }],
      ]);
      expect(review.approvals[0]?.args).toMatchObject({
        name: 'Systems Programming in Rust',
        description: 'How Rust keeps memory safe: ownership, borrowing and lifetimes.',
        keywords: ['rust', 'ownership', 'borrow checker'],
      });
      expect(completed(await dialog.answer(review, { item: 'Approve' }))).toBe(
        'Domain d-1 is saved.\n\nYour knowledge domains:\n' +
          '- d-1: Systems Programming in Rust (rust, ownership, borrow checker)',
      );

      // Diagram 2: root → document processor; relevance per domain, then facts, by the model.
      const url = `${fixtures.url}/docs/rust.pdf`;
      const pick = paused(await dialog.say(`Read ${url}`), TOOLS.pickFacts);
      const domain = {
        parsed_text: FIXTURE_TEXT.pdf.join('\n'),
        domain_name: 'Systems Programming in Rust',
        domain_description: 'How Rust keeps memory safe: ownership, borrowing and lifetimes.',
        domain_keywords: ['rust', 'ownership', 'borrow checker'],
      };
      expect(script.asks.slice(1).map((a) => [a.task, a.input])).toEqual([
        ['relevance', domain],
        // The extractor is told what made the text relevant, as the seed's call carries it.
        ['facts', { ...domain, relevance_grounding: ['borrow checker', 'ownership rules'] }],
      ]);
      expect(pick.approvals[0]?.args).toMatchObject({
        facts: [
          {
            fact_id: 'f1',
            fact: 'Rust manages memory through ownership, with no garbage collector.',
          },
          { fact_id: 'f2', fact: 'Borrowing rules are checked when the program is compiled.' },
        ],
      });
      completed(await dialog.answer(pick, { picked: ['f2'] }));
      const found = await memory.searchMemory({
        appName: 'knowledge-assistant',
        userId: dialog.user,
        query: 'compiled',
      });
      expect(found.memories.map((m) => m.content.parts?.[0]?.text)).toEqual([
        'Borrowing rules are checked when the program is compiled.',
      ]);

      // The model rates an unrelated page below the threshold: nothing is extracted.
      const unrelated = `${fixtures.url}/blog/sourdough`;
      expect(completed(await dialog.say(unrelated))).toMatch(/: no relevant domain/);
      expect(script.asks.slice(3).map((a) => a.task)).toEqual(['relevance']);

      // The state each agent was shown when the conversation came to it.
      const processed = {
        processed_intent: { intent: 'create', domain_id: 'd-1', status: 'processed_successful' },
      };
      expect(handOffs(script.turns)).toEqual([
        { agent: DOMAIN_AGENT, state: { ...named, intent: 'create' } },
        { agent: ROOT_AGENT, state: { ...named, ...processed } },
        { agent: DOCUMENT_AGENT, state: { ...named, ...processed, url } },
        {
          agent: ROOT_AGENT,
          state: {
            ...named,
            ...processed,
            url_type: 'pdf',
            processed_url: url,
            url_result: 'saved 1 fact(s)',
          },
        },
        {
          agent: DOCUMENT_AGENT,
          state: {
            ...named,
            ...processed,
            url: unrelated,
            url_type: 'pdf',
            processed_url: url,
            url_result: 'saved 1 fact(s)',
          },
        },
        {
          agent: ROOT_AGENT,
          state: {
            ...named,
            ...processed,
            url_type: 'page',
            processed_url: unrelated,
            url_result: 'no relevant domain',
          },
        },
      ]);
    });

    it('tells the user when the model answers something unusable, and keeps the intent', async () => {
      script.reset(() => 'not the asked shape');
      const dialog = new Dialog(holdpoint);
      await dialog.say('My name is Ann');
      await dialog.say('Create a domain');
      expect(completed(await dialog.say('bread baking'))).toMatch(
        /^Sorry: The model's answer has the wrong shape/,
      );
      expect(await dialog.state()).toMatchObject({ intent: 'create' });
    });
  },
);
