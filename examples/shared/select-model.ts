import type { BaseLlm, LlmRequest } from '@google/adk';
import type { Content } from '@google/genai';
import { RulesModel } from 'holdpoint';

/**
 * The model an example agent runs on: its offline rules when the host's setting is
 * `rules`, otherwise the setting itself as a model name, which ADK resolves (Gemini).
 */
export function selectModel(
  setting: string,
  name: string,
  respond: (request: LlmRequest) => Content,
): BaseLlm | string {
  return setting === 'rules' ? new RulesModel(name, respond) : setting;
}
