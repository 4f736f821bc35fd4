import { BaseLlm, type BaseLlmConnection, type LlmRequest, type LlmResponse } from '@google/adk';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { askModel, ModelAnswerError, toolModelFor } from './ask-model.js';
import { prettifyWithModel } from './model-tasks.js';

/** A model that answers every request with the responses it was given, and keeps the requests. */
class CannedModel extends BaseLlm {
  readonly requests: LlmRequest[] = [];
  constructor(private readonly responses: LlmResponse[]) {
    super({ model: 'canned' });
  }

  override async *generateContentAsync(request: LlmRequest): AsyncGenerator<LlmResponse, void> {
    this.requests.push(request);
    yield* this.responses;
  }

  override async connect(): Promise<BaseLlmConnection> {
    throw new Error('no live connections');
  }
}

function text(value: string): LlmResponse {
  return { content: { role: 'model', parts: [{ text: value }] } };
}

describe('the model the knowledge assistant tools ask', () => {
  it('is none with the rules model, so the tools keep their offline versions', () => {
    expect(toolModelFor('rules')).toBeUndefined();
    expect(toolModelFor('gemini-2.5-flash')).toBeTypeOf('function');
  });

  it('is asked for JSON in a schema, and its streamed answer is put together and checked', async () => {
    const model = new CannedModel([
      text('{"name":"Sourdough","description":"Bread with wild yeast.",'),
      { content: { role: 'model', parts: [{ text: 'thinking…', thought: true }] } },
      text('"keywords":["Bread","bread","  yeast "]}'),
    ]);
    expect(await prettifyWithModel(model, 'bread baking')).toEqual({
      name: 'Sourdough',
      description: 'Bread with wild yeast.',
      keywords: ['bread', 'yeast'],
    });
    const [request] = model.requests;
    expect(request?.contents).toEqual([
      { role: 'user', parts: [{ text: '{"domain_draft":"bread baking"}' }] },
    ]);
    expect(request?.config).toMatchObject({
      responseMimeType: 'application/json',
      responseJsonSchema: {
        type: 'object',
        required: ['name', 'description', 'keywords'],
      },
    });
    expect(request?.config?.responseJsonSchema).not.toHaveProperty('$schema');
  });

  it('throws ModelAnswerError for an error, text that is not JSON, or the wrong shape', async () => {
    const ask = (responses: LlmResponse[]) =>
      prettifyWithModel(new CannedModel(responses), 'bread baking');
    await expect(ask([{ errorCode: 'RESOURCE_EXHAUSTED', errorMessage: 'quota' }])).rejects.toThrow(
      new ModelAnswerError('The model answered RESOURCE_EXHAUSTED: quota'),
    );
    await expect(ask([text('Sure! Here is your domain.')])).rejects.toThrow(
      /^The model's answer is not JSON: Sure!/,
    );
    await expect(ask([text('{"name":"Bread"}')])).rejects.toThrow(
      /^The model's answer has the wrong shape: description: /,
    );
  });

  it('passes the abort signal on to the model', async () => {
    const signals: (AbortSignal | undefined)[] = [];
    const model = new (class extends CannedModel {
      override async *generateContentAsync(
        request: LlmRequest,
        _stream?: boolean,
        signal?: AbortSignal,
      ): AsyncGenerator<LlmResponse, void> {
        signals.push(signal);
        yield* super.generateContentAsync(request);
      }
    })([text('{"n":1}')]);
    const controller = new AbortController();
    await askModel(
      model,
      { instruction: 'count', input: {}, answer: z.object({ n: z.number() }) },
      controller.signal,
    );
    expect(signals).toEqual([controller.signal]);
  });
});
