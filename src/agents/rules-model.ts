import { BaseLlm, type BaseLlmConnection, type LlmRequest, type LlmResponse } from '@google/adk';
import type { Content } from '@google/genai';

/**
 * A deterministic stand-in for an LLM: `respond` maps the request history to the next
 * model turn, so every example app runs offline, with no key, the same way every time.
 */
export class RulesModel extends BaseLlm {
  private readonly respond: (request: LlmRequest) => Content;

  constructor(name: string, respond: (request: LlmRequest) => Content) {
    super({ model: `rules/${name}` });
    this.respond = respond;
  }

  /** Yields exactly one complete response; rules have nothing to stream. */
  override async *generateContentAsync(request: LlmRequest): AsyncGenerator<LlmResponse, void> {
    yield { content: this.respond(request), turnComplete: true };
  }

  /** Live (bidirectional audio/video) sessions are out of scope for scripted rules. */
  override async connect(): Promise<BaseLlmConnection> {
    throw new Error(`${this.model} does not support live connections`);
  }
}
