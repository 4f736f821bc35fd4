import type { BaseTool, Context } from '@google/adk';
import { describe, expect, it } from 'vitest';
import { HoldpointPlugin } from '../../agents/holdpoint-plugin.js';
import { SegmentPlugins } from './segment-plugins.js';

type ToolParams = { tool: BaseTool; toolArgs: Record<string, unknown>; toolContext: Context };
const params = {} as ToolParams;

/** A plugin that answers `beforeToolCallback` with `answer`, noting each call in `calls`. */
class Answering extends HoldpointPlugin {
  constructor(
    name: string,
    private readonly answer: Record<string, unknown> | undefined,
    private readonly calls: string[],
  ) {
    super(name);
  }

  override async beforeToolCallback(): Promise<Record<string, unknown> | undefined> {
    this.calls.push(this.name);
    return this.answer;
  }
}

/** A plugin that only looks at tool results. */
class Watching extends HoldpointPlugin {
  constructor(private readonly calls: string[]) {
    super('watching');
  }

  override async afterToolCallback(): Promise<undefined> {
    this.calls.push('watching');
    return undefined;
  }
}

describe('SegmentPlugins', () => {
  it('calls the plugins that take a callback in order, until one answers, as ADK would', async () => {
    const calls: string[] = [];
    const plugins = new SegmentPlugins([
      new Answering('first', undefined, calls),
      new Watching(calls),
      new Answering('second', { answered: 'second' }, calls),
      new Answering('third', { answered: 'third' }, calls),
    ]);
    expect(await plugins.beforeToolCallback(params)).toEqual({ answered: 'second' });
    expect(calls).toEqual(['first', 'second']);
    calls.length = 0;
    expect(
      await plugins.afterToolCallback({ ...params, result: {} as Record<string, unknown> }),
    ).toBeUndefined();
    expect(calls).toEqual(['watching']);
  });

  it('answers a callback no plugin takes with nothing, and lets an error through as thrown', async () => {
    const failing = new (class extends HoldpointPlugin {
      override async beforeToolCallback(): Promise<undefined> {
        throw new Error('the mark could not be stored');
      }
    })('failing');
    const plugins = new SegmentPlugins([failing, new Watching([])]);
    await expect(plugins.beforeToolCallback(params)).rejects.toThrow(
      'the mark could not be stored',
    );
    expect(
      await plugins.beforeModelCallback({
        callbackContext: {} as never,
        llmRequest: {} as never,
      }),
    ).toBeUndefined();
  });
});
