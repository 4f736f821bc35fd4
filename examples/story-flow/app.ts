import {
  BaseAgent,
  type BaseLlm,
  createEvent,
  createEventActions,
  type Event,
  FunctionTool,
  type InvocationContext,
  LlmAgent,
} from '@google/adk';
import { defineApp, idempotencyKey, once } from 'holdpoint';
import {
  agentStateEvent,
  endOfAgentEvent,
  LoopAgent,
  loadAgentState,
  runStep,
  SequentialAgent,
  type StepEnd,
} from 'holdpoint/workflows';
import { z } from 'zod';
import { selectModel } from '../shared/select-model.js';
import { storyRule } from './story-rules.js';

/** The steps of the flow, in order; the state checkpoints the next one to run. */
export enum WorkflowStep {
  InitialStoryGeneration = 1,
  CriticReviserLoop = 2,
  PostProcessing = 3,
  ConditionalRegeneration = 4,
  Publish = 5,
}

/** What the story flow checkpoints after each step. */
export interface StoryFlowState extends Record<string, unknown> {
  step: WorkflowStep;
}

/** The LLM each agent of the flow runs on, by agent name. */
export type StoryModels = (agent: string) => BaseLlm | string;

function textOf(ctx: InvocationContext): string {
  return (ctx.userContent?.parts ?? [])
    .map((part) => part.text ?? '')
    .join(' ')
    .trim();
}

/**
 * Seed 002's StoryFlowAgent, resumable: initial story → critic/reviser loop →
 * post-processing (grammar, tone) → a regeneration when the tone is negative → a
 * person approves publishing it. It checkpoints the next step after each one, so a
 * run stopped by a crash goes on at the next step without redoing the finished ones,
 * and it stops inside the publishing step while the approval waits.
 */
export class StoryFlowAgent extends BaseAgent {
  constructor(
    private readonly storyGenerator: LlmAgent,
    private readonly criticReviserLoop: LoopAgent,
    private readonly postProcessing: SequentialAgent,
    private readonly publisher: LlmAgent,
  ) {
    super({
      name: 'story_flow',
      description:
        'Writes a story, critiques and revises it, checks it, and publishes it once approved.',
      subAgents: [storyGenerator, criticReviserLoop, postProcessing, publisher],
    });
  }

  /** The checkpoint of the step about to run. */
  private checkpoint(ctx: InvocationContext, step: WorkflowStep): Event {
    return agentStateEvent(ctx, this, { step } satisfies StoryFlowState);
  }

  protected async *runAsyncImpl(ctx: InvocationContext): AsyncGenerator<Event, void, void> {
    const state = loadAgentState<StoryFlowState>(ctx, this);
    const next = state?.step ?? WorkflowStep.InitialStoryGeneration;
    if (!state) {
      // The topic goes to session state with the first checkpoint; every agent reads it there.
      yield createEvent({
        invocationId: ctx.invocationId,
        author: this.name,
        actions: createEventActions({
          stateDelta: { topic: textOf(ctx) },
          agentState: { step: next },
        }),
      });
    }
    const end: StepEnd = { paused: false, escalated: false };

    if (next <= WorkflowStep.InitialStoryGeneration) {
      yield* runStep(this.storyGenerator, ctx, end);
      if (!ctx.session.state.current_story) return;
      yield this.checkpoint(ctx, WorkflowStep.CriticReviserLoop);
    }
    if (next <= WorkflowStep.CriticReviserLoop) {
      yield* runStep(this.criticReviserLoop, ctx, end);
      if (end.paused) return;
      yield this.checkpoint(ctx, WorkflowStep.PostProcessing);
    }
    if (next <= WorkflowStep.PostProcessing) {
      yield* runStep(this.postProcessing, ctx, end);
      if (end.paused) return;
      yield this.checkpoint(ctx, WorkflowStep.ConditionalRegeneration);
    }
    if (next <= WorkflowStep.ConditionalRegeneration) {
      if (String(ctx.session.state.tone_check_result ?? '').includes('negative')) {
        yield* runStep(this.storyGenerator, ctx, end);
      }
      yield this.checkpoint(ctx, WorkflowStep.Publish);
    }
    yield* runStep(this.publisher, ctx, end);
    if (end.paused) return;
    yield endOfAgentEvent(ctx, this);
  }

  // biome-ignore lint/correctness/useYield: the story flow has no live mode
  protected async *runLiveImpl(): AsyncGenerator<Event, void, void> {
    throw new Error('story_flow does not support live runs.');
  }
}

/** Publishing is the effect a person signs off: once per approved call. */
const publishStory = new FunctionTool({
  name: 'publish_story',
  description: 'Publishes a story under a title; the person approving it reads the story.',
  parameters: z.object({
    title: z.string().min(1).max(200),
    story: z.string().min(1).max(20_000),
  }),
  requireConfirmation: true,
  execute: async ({ title, story }, toolContext) => {
    const key = idempotencyKey(toolContext);
    return once(toolContext, async () => ({
      status: 'published',
      title,
      words: story.split(/\s+/).length,
      story_id: `STORY-${key.slice(3, 11).toUpperCase()}`,
    }));
  },
});

/** The story flow's agent tree, each LLM from `models`. */
export function storyFlowAgent(models: StoryModels): StoryFlowAgent {
  const storyGenerator = new LlmAgent({
    name: 'story_generator',
    model: models('story_generator'),
    instruction:
      'Write a short story (about 100 words) about <topic>{topic}</topic>. ' +
      'If the tone was found <tone>{tone_check_result?}</tone>, make this one brighter.',
    outputKey: 'current_story',
  });
  const critic = new LlmAgent({
    name: 'critic',
    model: models('critic'),
    instruction:
      'Review the story <story>{current_story}</story>. Give one or two sentences of ' +
      'constructive criticism, or say "No major issues."',
    outputKey: 'criticism',
  });
  const reviser = new LlmAgent({
    name: 'reviser',
    model: models('reviser'),
    instruction:
      'Revise the story <story>{current_story}</story> following the criticism ' +
      '<critique>{criticism}</critique>. Output only the revised story.',
    outputKey: 'current_story',
  });
  const grammarCheck = new LlmAgent({
    name: 'grammar_check',
    model: models('grammar_check'),
    instruction: 'List grammar corrections for <story>{current_story}</story>, or say none.',
    outputKey: 'grammar_suggestions',
  });
  const toneCheck = new LlmAgent({
    name: 'tone_check',
    model: models('tone_check'),
    instruction:
      'Analyse the tone of <story>{current_story}</story>. Answer with one word: ' +
      'positive, negative or neutral.',
    outputKey: 'tone_check_result',
  });
  const publisher = new LlmAgent({
    name: 'publisher',
    model: models('publisher'),
    instruction:
      'Publish the story <story>{current_story}</story> about <topic>{topic}</topic> by ' +
      'calling publish_story with a short title and the story, word for word. A person ' +
      'approves it first. Then say the story id, or that it was not published and why.',
    tools: [publishStory],
  });
  return new StoryFlowAgent(
    storyGenerator,
    new LoopAgent({ name: 'critic_reviser_loop', maxIterations: 2, subAgents: [critic, reviser] }),
    new SequentialAgent({ name: 'post_processing', subAgents: [grammarCheck, toneCheck] }),
    publisher,
  );
}

export default defineApp({
  name: 'story-flow',
  label: 'Story flow',
  description:
    'A resumable custom workflow: story, critique and revision, checks, then a person approves publishing.',
  examples: ['Write a story about a brave kitten', 'Write a story about a sad rainy day'],
  agent: ({ model }) => storyFlowAgent((name) => selectModel(model, name, storyRule(name))),
  approvals: {
    publish_story: {
      hint: (args) => `Publish the story "${String(args.title)}"?`,
    },
  },
});
