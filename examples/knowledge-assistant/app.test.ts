import {
  type BaseMemoryService,
  InMemoryMemoryService,
  type SearchMemoryRequest,
  type Session,
} from '@google/adk';
import { createHoldpoint, type PendingOutcome, type RunOutcome } from 'holdpoint';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { knowledgeAssistant } from './app.js';
import { FIXTURE_TEXT, FixtureServer, VIDEO_ID } from './fixture-server.test-support.js';
import { TOOLS } from './names.js';
import { GOODBYE } from './root-rules.js';

/** ADK's in-memory memory service, keeping what was added so tests can read its metadata. */
class RecordingMemory implements BaseMemoryService {
  readonly added: Session[] = [];
  private readonly inner = new InMemoryMemoryService();

  addSessionToMemory(session: Session): Promise<void> {
    this.added.push(session);
    return this.inner.addSessionToMemory(session);
  }

  searchMemory(request: SearchMemoryRequest) {
    return this.inner.searchMemory(request);
  }
}

let fixtures: FixtureServer;
let memory: RecordingMemory;
let holdpoint: ReturnType<typeof createHoldpoint>;

beforeAll(async () => {
  fixtures = await FixtureServer.start();
  memory = new RecordingMemory();
  holdpoint = createHoldpoint({
    apps: [
      knowledgeAssistant({
        nameAttemptLimit: 2,
        youtubeTranscriptUrl: `${fixtures.url}/transcripts`,
        // The fixtures are served on this machine.
        allowPrivateNetworks: true,
      }),
    ],
    memoryService: memory,
    sweepIntervalSeconds: false,
  });
});
afterAll(async () => {
  await holdpoint.close();
  await fixtures.stop();
});

function completed(outcome: RunOutcome): string {
  if (outcome.status !== 'completed') throw new Error(`not completed: ${JSON.stringify(outcome)}`);
  return outcome.result;
}

function paused(outcome: RunOutcome, tool: string): PendingOutcome {
  if (outcome.status !== 'pending_approval')
    throw new Error(`not paused: ${JSON.stringify(outcome)}`);
  expect(outcome.approvals.map((a) => a.toolName)).toEqual([tool]);
  return outcome;
}

/** A conversation of `user` with the assistant in one session. */
class Chat {
  sessionId?: string;
  constructor(readonly user = `user-${Math.random().toString(36).slice(2, 8)}`) {}

  async say(query: string): Promise<RunOutcome> {
    const outcome = await holdpoint.startRun({ query, sessionId: this.sessionId }, this.user);
    this.sessionId = outcome.sessionId;
    return outcome;
  }

  /** Answers the pending input approval with `payload`. */
  answer(pause: PendingOutcome, payload: unknown): Promise<RunOutcome> {
    const [approval] = pause.approvals;
    return holdpoint.resumeRun(
      {
        sessionId: pause.sessionId,
        decisions: [{ approvalId: approval?.approvalId ?? '', approved: true, payload }],
      },
      this.user,
    );
  }

  async state(): Promise<Record<string, unknown>> {
    const { view } = await holdpoint.getSessionMessages(this.sessionId ?? '');
    return view.state;
  }

  async named(name = 'Ann'): Promise<this> {
    await this.say(`My name is ${name}`);
    return this;
  }
}

/** A user named Ann with the Rust domain d-1 saved. */
async function annWithRustDomain(): Promise<Chat> {
  const chat = await new Chat().named();
  completed(await chat.say('Create a new domain'));
  const review = paused(
    await chat.say('rust programming: ownership, borrowing and lifetimes in rust'),
    TOOLS.reviewDraft,
  );
  completed(await chat.answer(review, { action: 'approve' }));
  return chat;
}

describe('knowledge-assistant: who the user is', () => {
  it('asks the name, and records user_id and user_name in state once it is given', async () => {
    const chat = new Chat();
    expect(completed(await chat.say('hello'))).toMatch(/What is your name\?/);
    // name_attempts is in state from the first turn (seed 003), not only after a refusal.
    expect(await chat.state()).toEqual({ name_attempts: 0 });
    expect(completed(await chat.say('Ann'))).toMatch(/^Nice to meet you, Ann!/);
    expect(await chat.state()).toEqual({ user_id: chat.user, user_name: 'Ann', name_attempts: 0 });
  });

  it('counts refused names in name_attempts and ends politely at the limit', async () => {
    const chat = new Chat();
    await chat.say('hi');
    expect(completed(await chat.say('1234!'))).toMatch(/does not look like a name.*1 attempt/);
    expect(await chat.state()).toMatchObject({ name_attempts: 1 });
    expect(completed(await chat.say('???'))).toBe(GOODBYE);
    expect(await chat.state()).toMatchObject({ name_attempts: 2 });
    // The conversation stays ended: even a good name is not taken any more.
    expect(completed(await chat.say('My name is Ann'))).toBe(GOODBYE);
    const state = await chat.state();
    expect(state.name_attempts).toBe(2);
    expect(state).not.toHaveProperty('user_name');
  });

  it('hands nothing over before the name is known', async () => {
    const chat = new Chat();
    expect(completed(await chat.say('Create a domain'))).toMatch(/What is your name\?/);
    expect(await chat.state()).not.toHaveProperty('intent');
  });
});

describe('knowledge-assistant: root → domain lifecycle through state', () => {
  it('creates a domain: intent in state, a draft reviewed by a person, saved and listed', async () => {
    const chat = await new Chat().named();
    expect(completed(await chat.say('Create a new domain'))).toMatch(
      /^Describe the knowledge domain/,
    );
    expect(await chat.state()).toMatchObject({ intent: 'create', domain_id: null });
    const review = paused(
      await chat.say('rust programming: ownership, borrowing and lifetimes in rust'),
      TOOLS.reviewDraft,
    );
    expect(review.approvals[0]).toMatchObject({
      kind: 'input',
      args: {
        name: 'Rust Programming',
        description: 'Ownership, borrowing and lifetimes in rust.',
        keywords: ['rust', 'programming', 'ownership', 'borrowing', 'lifetimes'],
        options: ['Approve', 'Cancel'],
        free_text: true,
      },
    });
    // The draft lives in the conversation, never in state.
    expect(JSON.stringify(await chat.state())).not.toMatch(/lifetimes/);
    const done = completed(await chat.answer(review, { action: 'approve' }));
    expect(done).toMatch(
      /^Domain d-1 is saved\.\n\nYour knowledge domains:\n- d-1: Rust Programming/,
    );
    const state = await chat.state();
    expect(state).toMatchObject({
      intent: null,
      domain_id: null,
      processed_intent: { intent: 'create', domain_id: 'd-1', status: 'processed_successful' },
    });
    expect(state['user:domains']).toEqual([
      expect.objectContaining({ domain_id: 'd-1', name: 'Rust Programming', active: true }),
    ]);
  });

  it('prettifies a correction again, then saves what was approved', async () => {
    const chat = await new Chat().named();
    await chat.say('Create a domain');
    const first = paused(await chat.say('bread baking'), TOOLS.reviewDraft);
    const second = paused(
      await chat.answer(first, { item: 'Sourdough: bread baking with wild yeast starters' }),
      TOOLS.reviewDraft,
    );
    expect(second.approvals[0]?.args).toMatchObject({
      name: 'Sourdough',
      description: 'Bread baking with wild yeast starters.',
    });
    completed(await chat.answer(second, { item: 'Approve' }));
    const state = await chat.state();
    expect(state['user:domains']).toEqual([
      expect.objectContaining({ domain_id: 'd-1', name: 'Sourdough' }),
    ]);
    expect(state).toMatchObject({
      intent: null,
      domain_id: null,
      processed_intent: { intent: 'create', domain_id: 'd-1', status: 'processed_successful' },
    });
  });

  it('clears intent and domain_id on a cancel, by the person or by the user', async () => {
    const chat = await annWithRustDomain();
    await chat.say('Update domain d-1');
    const review = paused(await chat.say('rust: the language'), TOOLS.reviewDraft);
    expect(await chat.state()).toMatchObject({ intent: 'update', domain_id: 'd-1' });
    expect(completed(await chat.answer(review, { item: 'Cancel' }))).toMatch(
      /^You asked to cancel, so nothing was changed\. Handing you back\.\n\nYour knowledge domains:\n- d-1: Rust Programming/,
    );
    expect(await chat.state()).toMatchObject({
      intent: null,
      domain_id: null,
      processed_intent: null,
    });
    await chat.say('Create a domain');
    expect(await chat.state()).toMatchObject({ intent: 'create' });
    expect(completed(await chat.say('cancel'))).toMatch(
      /^You asked to cancel, so nothing was changed\. Handing you back\.\n\nYour knowledge domains:/,
    );
    const state = await chat.state();
    expect(state).toMatchObject({ intent: null, domain_id: null });
    expect(state['user:domains']).toHaveLength(1);
  });

  it('updates a domain of the user after showing it, and refuses one they do not have', async () => {
    const chat = await annWithRustDomain();
    expect(completed(await chat.say('Update domain d-7'))).toMatch(/^You have no domain d-7\./);
    expect(await chat.state()).toMatchObject({
      intent: null,
      domain_id: null,
      processed_intent: { intent: 'create', domain_id: 'd-1', status: 'processed_successful' },
    });
    const shown = completed(await chat.say('Please update domain d-1'));
    expect(shown).toMatch(/^Currently d-1 is "Rust Programming": Ownership, borrowing/);
    expect(await chat.state()).toMatchObject({
      intent: 'update',
      domain_id: 'd-1',
      processed_intent: null,
    });
    const review = paused(
      await chat.say('Rust: memory safety and fearless concurrency'),
      TOOLS.reviewDraft,
    );
    completed(await chat.answer(review, { action: 'approve' }));
    const state = await chat.state();
    expect(state['user:domains']).toEqual([
      expect.objectContaining({
        domain_id: 'd-1',
        name: 'Rust',
        description: 'Memory safety and fearless concurrency.',
      }),
    ]);
    expect(state).toMatchObject({
      intent: null,
      domain_id: null,
      processed_intent: { intent: 'update', domain_id: 'd-1', status: 'processed_successful' },
    });
  });

  it("keeps a user's domains across their sessions, and only theirs", async () => {
    const ann = await annWithRustDomain();
    const again = new Chat(ann.user);
    await again.named();
    expect(completed(await again.say('List my domains'))).toMatch(/- d-1: Rust Programming/);
    const bob = await new Chat().named('Bob');
    expect(completed(await bob.say('List my domains'))).toMatch(/no knowledge domains yet/);
    expect(completed(await bob.say('Update domain d-1'))).toMatch(/^You have no domain d-1\./);
  });
});

describe('knowledge-assistant: root → document processor through state', () => {
  /** The facts offered in a pick, by id. */
  function offered(pause: PendingOutcome): { fact_id: string; fact: string }[] {
    return (pause.approvals[0]?.args.facts ?? []) as { fact_id: string; fact: string }[];
  }

  it('reads a PDF with a real parser and saves the picked facts to memory', async () => {
    const chat = await annWithRustDomain();
    const url = `${fixtures.url}/docs/rust.pdf`;
    const pick = paused(
      await chat.say(`Please read ${url}, and another https://x.test/y`),
      TOOLS.pickFacts,
    );
    expect(await chat.state()).toMatchObject({ url, url_type: 'pdf' });
    expect(offered(pick).map((f) => f.fact)).toEqual([FIXTURE_TEXT.pdf[0], FIXTURE_TEXT.pdf[1]]);
    expect(pick.approvals[0]?.args).toMatchObject({
      multiple: true,
      options: [expect.stringMatching(/^f1: Rust/), expect.stringMatching(/^f2: /)],
    });
    const before = memory.added.length;
    const done = completed(await chat.answer(pick, { picked: ['f2'] }));
    expect(done).toMatch(
      new RegExp(`^Saved 1 fact\\(s\\) to your memory\\.\n\nFinished ${url}: saved 1 fact\\(s\\)`),
    );
    const state = await chat.state();
    expect(state).toMatchObject({
      url: null,
      url_type: 'pdf',
      processed_url: url,
      url_result: 'saved 1 fact(s)',
    });
    const saved = memory.added.slice(before).flatMap((s) => s.events);
    expect(saved.map((e) => [e.content?.parts?.[0]?.text, e.customMetadata])).toEqual([
      [
        FIXTURE_TEXT.pdf[1],
        { user_id: chat.user, domain_id: 'd-1', source_url: url, fact_id: 'f2' },
      ],
    ]);
    const found = await memory.searchMemory({
      appName: 'knowledge-assistant',
      userId: chat.user,
      query: 'borrow checker',
    });
    expect(found.memories.map((m) => m.content.parts?.[0]?.text)).toEqual([FIXTURE_TEXT.pdf[1]]);
  });

  it('reads the article of an ordinary page and saves every picked fact', async () => {
    const chat = await annWithRustDomain();
    const url = `${fixtures.url}/blog/lifetimes`;
    const pick = paused(await chat.say(url), TOOLS.pickFacts);
    expect(await chat.state()).toMatchObject({ url, url_type: 'page' });
    expect(offered(pick).map((f) => f.fact)).toEqual([
      'Lifetimes tell the Rust compiler how long references stay valid.',
      'Every reference in Rust has a lifetime, most of them inferred.',
    ]);
    expect(completed(await chat.answer(pick, { items: ['f1: Lifetimes…', 'f2: Every…'] }))).toMatch(
      /saved 2 fact/,
    );
    expect(await chat.state()).toMatchObject({ url: null, url_result: 'saved 2 fact(s)' });
  });

  it('reads a YouTube transcript from the configured service', async () => {
    const chat = await annWithRustDomain();
    const url = `https://www.youtube.com/watch?v=${VIDEO_ID}`;
    const pick = paused(await chat.say(`watch ${url}`), TOOLS.pickFacts);
    expect(await chat.state()).toMatchObject({ url, url_type: 'youtube' });
    expect(offered(pick).map((f) => f.fact)).toEqual(FIXTURE_TEXT.transcript.slice(1));
    completed(await chat.answer(pick, { item: 'f1' }));
    expect(await chat.state()).toMatchObject({ url: null, url_result: 'saved 1 fact(s)' });
  });

  it('ends cleanly when no domain is relevant, without asking anyone', async () => {
    const chat = await annWithRustDomain();
    const url = `${fixtures.url}/blog/sourdough`;
    const before = memory.added.length;
    expect(completed(await chat.say(url))).toMatch(
      new RegExp(`^Your link does not correspond .*\n\nFinished ${url}: no relevant domain`),
    );
    expect(await chat.state()).toMatchObject({
      url: null,
      url_type: 'page',
      processed_url: url,
      url_result: 'no relevant domain',
    });
    expect(memory.added.length).toBe(before);
  });

  it('ends cleanly when the person picks no fact', async () => {
    const chat = await annWithRustDomain();
    const pick = paused(await chat.say(`${fixtures.url}/docs/rust.pdf`), TOOLS.pickFacts);
    const before = memory.added.length;
    expect(completed(await chat.answer(pick, { picked: [] }))).toMatch(/: no facts picked/);
    expect(await chat.state()).toMatchObject({ url: null, url_result: 'no facts picked' });
    expect(memory.added.length).toBe(before);
  });

  it('says what went wrong with a link that cannot be read, and clears it', async () => {
    const chat = await annWithRustDomain();
    const url = `${fixtures.url}/missing.pdf`;
    expect(completed(await chat.say(url))).toMatch(/: error: .*answered 404/);
    expect(await chat.state()).toMatchObject({ url: null, url_type: 'pdf', processed_url: url });
  });
});
