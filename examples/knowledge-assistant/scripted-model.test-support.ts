import {
  BaseLlm,
  type BaseLlmConnection,
  LLMRegistry,
  type LlmRequest,
  type LlmResponse,
} from '@google/adk';
import type { Content } from '@google/genai';
import { respondDocumentProcessor } from './document-rules.js';
import { respondDomainLifecycle } from './domain-rules.js';
import { DOCUMENT_AGENT, DOMAIN_AGENT, ROOT_AGENT } from './names.js';
import { respondRoot } from './root-rules.js';
import { shownState } from './state-keys.js';

/** The model name the scripted stand-in for Gemini answers to, through ADK's registry. */
export const SCRIPTED_MODEL = 'scripted-gemini';

/** The three questions the knowledge assistant's tools ask a real model. */
export type ModelTask = 'prettify' | 'relevance' | 'facts';

/** A question a tool asked, as the model received it. */
export interface Ask {
  task: ModelTask;
  input: Record<string, unknown>;
  instruction: string;
  /** The JSON schema the answer was asked in. */
  schema: Record<string, unknown>;
}

/** One agent turn: which agent asked, and the session state its instruction showed. */
export interface AgentTurn {
  agent: string;
  state: Record<string, unknown>;
}

const AGENT_RULES: Record<string, (request: LlmRequest) => Content> = {
  [ROOT_AGENT]: respondRoot,
  [DOMAIN_AGENT]: respondDomainLifecycle,
  [DOCUMENT_AGENT]: respondDocumentProcessor,
};

/**
 * What the scripted model does and saw. Agent turns are answered as a model that
 * follows the instructions would (the example's own rules), so the conversation goes
 * as the seed's diagrams say; the tools' questions are answered by `answer`, which a
 * test sets to what "Gemini" says.
 */
export const script = {
  answer: (_task: ModelTask, _input: Record<string, unknown>): unknown => {
    throw new Error('no answer scripted');
  },
  asks: [] as Ask[],
  turns: [] as AgentTurn[],
  reset(answer: (task: ModelTask, input: Record<string, unknown>) => unknown) {
    this.answer = answer;
    this.asks = [];
    this.turns = [];
  },
};

function instructionText(request: LlmRequest): string {
  const instruction = request.config?.systemInstruction;
  if (typeof instruction === 'string') return instruction;
  const parts = (instruction as { parts?: { text?: string }[] } | undefined)?.parts ?? [];
  return parts.map((part) => part.text ?? '').join('\n');
}

/** Which of the tools' questions a JSON request is, by the answer's schema. */
function taskOf(schema: Record<string, unknown>): ModelTask {
  const properties = Object.keys((schema.properties ?? {}) as Record<string, unknown>);
  if (properties.includes('relevance_level')) return 'relevance';
  if (properties.includes('facts')) return 'facts';
  if (properties.includes('keywords')) return 'prettify';
  throw new Error(`unexpected question: ${JSON.stringify(schema)}`);
}

/**
 * A `BaseLlm` standing in for Gemini, resolved by name through ADK's `LLMRegistry` as
 * `gemini-*` is: the app's agents and its tools get it exactly as they would get Gemini.
 */
export class ScriptedGemini extends BaseLlm {
  static override readonly supportedModels = [SCRIPTED_MODEL];

  override async *generateContentAsync(request: LlmRequest): AsyncGenerator<LlmResponse, void> {
    const instruction = instructionText(request);
    if (request.config?.responseMimeType === 'application/json') {
      const schema = (request.config.responseJsonSchema ?? {}) as Record<string, unknown>;
      const task = taskOf(schema);
      const text = request.contents[0]?.parts?.[0]?.text ?? '{}';
      const input = JSON.parse(text) as Record<string, unknown>;
      script.asks.push({ task, input, instruction, schema });
      const answer = script.answer(task, input);
      yield {
        content: { role: 'model', parts: [{ text: JSON.stringify(answer) }] },
        turnComplete: true,
      };
      return;
    }
    const agent = /Your internal name is "([\w-]+)"/.exec(instruction)?.[1] ?? '';
    const rules = AGENT_RULES[agent];
    if (!rules) throw new Error(`no agent named in: ${instruction.slice(0, 200)}`);
    script.turns.push({ agent, state: shownState(request.config?.systemInstruction) });
    yield { content: rules(request), turnComplete: true };
  }

  override async connect(): Promise<BaseLlmConnection> {
    throw new Error('the scripted model has no live connections');
  }
}

LLMRegistry.register(ScriptedGemini);

/**
 * The turns where the conversation changed hands: each agent's first turn after another
 * agent's, with the state it was shown.
 */
export function handOffs(turns: AgentTurn[]): AgentTurn[] {
  return turns.filter((turn, i) => i > 0 && turns[i - 1]?.agent !== turn.agent);
}
