import type { BaseLlm, LlmRequest } from '@google/adk';
import type { Content } from '@google/genai';
import { RULES_MODEL } from './agent-app.js';
import { RulesModel } from './rules-model.js';

/**
 * The model an agent runs on: its rules when the setting is 'rules', otherwise the
 * setting itself as a model name, which ADK resolves (Gemini) at run time.
 */
export function selectModel(
  setting: string,
  name: string,
  respond: (request: LlmRequest) => Content,
): BaseLlm | string {
  return setting === RULES_MODEL ? new RulesModel(name, respond) : setting;
}
