import { type BaseLlm, LLMRegistry, type LlmRequest } from '@google/adk';
import { z } from 'zod';

/**
 * The model the prettifier, the relevance check and the fact extractor ask, resolved
 * when first asked; undefined with the rules model, where they keep their
 * deterministic versions (so the demo and its tests run offline).
 */
export type ToolModel = () => BaseLlm;

/**
 * The tools' model for the host's model setting: none for `rules`, otherwise the model
 * ADK resolves for that name (Gemini for `gemini-*`), as the agents' own model is.
 */
export function toolModelFor(setting: string): ToolModel | undefined {
  if (setting === 'rules') return undefined;
  let model: BaseLlm | undefined;
  return () => {
    model ??= LLMRegistry.newLlm(setting);
    return model;
  };
}

/** Why a model's answer could not be used; tools answer it as `{ error: { code, message } }`. */
export class ModelAnswerError extends Error {
  readonly code = 'MODEL_FAILED';
}

/** What a tool asks the model: a task, its input (sent as JSON) and the answer's shape. */
export interface ModelQuestion<T> {
  instruction: string;
  input: Record<string, unknown>;
  answer: z.ZodType<T>;
}

/** The JSON schema of an answer, as Gemini takes it (without the `$schema` dialect). */
function answerSchema(answer: z.ZodType): Record<string, unknown> {
  const { $schema: _dialect, ...schema } = z.toJSONSchema(answer, { io: 'input' });
  return schema;
}

/**
 * Asks `model` one question through ADK's model interface and returns its JSON answer,
 * checked against `question.answer`. The answer's JSON schema goes with the request, so
 * Gemini answers in that shape; anything else throws `ModelAnswerError`.
 */
export async function askModel<T>(
  model: BaseLlm,
  question: ModelQuestion<T>,
  abortSignal?: AbortSignal,
): Promise<T> {
  const request: LlmRequest = {
    model: model.model,
    contents: [{ role: 'user', parts: [{ text: JSON.stringify(question.input) }] }],
    config: {
      systemInstruction: question.instruction,
      responseMimeType: 'application/json',
      responseJsonSchema: answerSchema(question.answer),
    },
    liveConnectConfig: {},
    toolsDict: {},
  };
  let text = '';
  for await (const response of model.generateContentAsync(request, false, abortSignal)) {
    if (response.errorCode) {
      throw new ModelAnswerError(
        `The model answered ${response.errorCode}: ${response.errorMessage ?? ''}`.trim(),
      );
    }
    text += (response.content?.parts ?? [])
      .filter((part) => !part.thought)
      .map((part) => part.text ?? '')
      .join('');
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new ModelAnswerError(`The model's answer is not JSON: ${text.slice(0, 200)}`);
  }
  const parsed = question.answer.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new ModelAnswerError(
      `The model's answer has the wrong shape: ${issue?.path.join('.')}: ${issue?.message}`,
    );
  }
  return parsed.data;
}
