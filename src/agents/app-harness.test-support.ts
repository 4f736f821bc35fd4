import { type Event, InMemorySessionService, Runner } from '@google/adk';
import type { Content, FunctionCall } from '@google/genai';
import type { EffectLedger } from '../core/effect-ledger.js';
import type { AgentApp, AgentAppOptions } from './agent-app.js';

/**
 * Test support: runs one app with ADK's real Runner on in-memory sessions, and
 * records which effects actually ran.
 */
export class AppHarness {
  /** Keys of effects whose body ran, in order. */
  readonly effectRuns: string[] = [];
  readonly app: AgentApp;
  private readonly results = new Map<string, unknown>();
  private readonly sessions = new InMemorySessionService();
  private readonly runner: Runner;
  private readonly sessionId: string;

  constructor(create: (options: AgentAppOptions) => AgentApp, sessionId = 'session-1') {
    const effects: EffectLedger = {
      once: async <T>(key: string, effect: () => Promise<T>): Promise<T> => {
        if (!this.results.has(key)) {
          this.effectRuns.push(key);
          this.results.set(key, await effect());
        }
        return this.results.get(key) as T;
      },
    };
    this.app = create({ model: 'rules', effects });
    this.runner = new Runner({
      appName: this.app.name,
      agent: this.app.rootAgent,
      sessionService: this.sessions,
    });
    this.sessionId = sessionId;
  }

  /** Sends one user content and collects every event of the run. */
  async send(newMessage: Content): Promise<Event[]> {
    const session = await this.sessions.getSession({
      appName: this.app.name,
      userId: 'tester',
      sessionId: this.sessionId,
    });
    if (!session) {
      await this.sessions.createSession({
        appName: this.app.name,
        userId: 'tester',
        sessionId: this.sessionId,
      });
    }
    const events: Event[] = [];
    for await (const event of this.runner.runAsync({
      userId: 'tester',
      sessionId: this.sessionId,
      newMessage,
    })) {
      events.push(event);
    }
    return events;
  }

  /** Sends a user text. */
  say(text: string): Promise<Event[]> {
    return this.send({ role: 'user', parts: [{ text }] });
  }

  /** Answers a pending function call (a confirmation or a long-running tool). */
  answer(id: string, name: string, response: Record<string, unknown>): Promise<Event[]> {
    return this.send({ role: 'user', parts: [{ functionResponse: { id, name, response } }] });
  }

  /** The function calls among `events` named `name`. */
  static calls(events: Event[], name: string): FunctionCall[] {
    return events
      .flatMap((event) => event.content?.parts ?? [])
      .flatMap((part) => (part.functionCall?.name === name ? [part.functionCall] : []));
  }

  /** The function responses among `events` named `name`. */
  static responses(events: Event[], name: string): Record<string, unknown>[] {
    return events
      .flatMap((event) => event.content?.parts ?? [])
      .flatMap((part) =>
        part.functionResponse?.name === name ? [part.functionResponse.response ?? {}] : [],
      );
  }

  /** The model's text replies among `events`, joined. */
  static text(events: Event[]): string {
    return events
      .filter((event) => event.content?.role === 'model')
      .flatMap((event) => event.content?.parts ?? [])
      .map((part) => part.text ?? '')
      .join('');
  }
}
