import { FunctionTool, LlmAgent } from '@google/adk';
import { z } from 'zod';
import type { AgentApp, AgentAppOptions } from '../agent-app.js';
import { effectKey } from '../effect-key.js';
import { selectModel } from '../select-model.js';
import { generateImages } from './generate-images.js';
import { IMAGE_TOOL, MAX_IMAGES, respondImageStudio } from './image-studio-rules.js';

/** Options of the image studio: requests above `threshold` images need approval. */
export interface ImageStudioOptions extends AgentAppOptions {
  threshold?: number;
}

const INSTRUCTION = `You are Image Studio, an assistant that generates images.
When the user asks for images, call ${IMAGE_TOOL} with num_images set to how many they want
(a whole number from 1 to ${MAX_IMAGES}; "an image" means 1). Do not ask for confirmation
yourself: large requests are sent to a human for approval automatically.
When the tool returns status "approved", tell the user their images are ready and give the
order id; never repeat the image data. When it returns an error (for example a rejection),
tell the user the request was rejected and no images were generated.
For anything else, briefly explain what you can do.`;

/** Seed 000: an agent whose large image requests wait for a human's approval. */
export function createImageStudioApp(options: ImageStudioOptions): AgentApp {
  const threshold = options.threshold ?? 1;
  const tool = new FunctionTool({
    name: IMAGE_TOOL,
    description: `Generates num_images images (1 to ${MAX_IMAGES}) and returns them.`,
    parameters: z.object({
      num_images: z.number().int().min(1).max(MAX_IMAGES).describe('How many images to make'),
    }),
    requireConfirmation: (args) => args.num_images > threshold,
    execute: async (args, ctx) =>
      options.effects.once(effectKey(ctx), async () => ({
        status: 'approved',
        order_id: `REQ-${args.num_images}-HUMAN`,
        num_images: args.num_images,
        artifacts: generateImages(args.num_images),
      })),
  });
  const rootAgent = new LlmAgent({
    name: 'image_studio',
    description: 'Generates images; large requests need approval.',
    model: selectModel(options.model, 'image-studio', respondImageStudio),
    instruction: INSTRUCTION,
    tools: [tool],
  });
  return {
    name: 'image-studio',
    description: 'Generate images; requests above the threshold wait for approval (seed 000).',
    rootAgent,
    hints: {
      [IMAGE_TOOL]: (args) => `⚠️ Large request: ${String(args.num_images)} images`,
    },
  };
}
