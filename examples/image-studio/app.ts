import { FunctionTool, LlmAgent } from '@google/adk';
import { defineApp, type HoldpointApp, once } from 'holdpoint';
import { z } from 'zod';
import { selectModel } from '../shared/select-model.js';
import { generateImages } from './generate-images.js';
import { IMAGE_TOOL, MAX_IMAGES, respondImageStudio } from './image-studio-rules.js';

/** Options of the image studio: requests above `threshold` images need approval. */
export interface ImageStudioOptions {
  threshold: number;
}

const INSTRUCTION = `You are Image Studio, an assistant that generates images.
When the user asks for images, call ${IMAGE_TOOL} with num_images set to how many they want
(a whole number from 1 to ${MAX_IMAGES}; "an image" means 1). Do not ask for confirmation
yourself: large requests are sent to a human for approval automatically.
When the tool returns status "approved", tell the user their images are ready and give the
order id; never repeat the image data. When it returns an error (for example a rejection),
tell the user the request was rejected and no images were generated.
For anything else, briefly explain what you can do.`;

function imageStudioAgent(model: string, { threshold }: ImageStudioOptions): LlmAgent {
  const tool = new FunctionTool({
    name: IMAGE_TOOL,
    description: `Generates num_images images (1 to ${MAX_IMAGES}) and returns them.`,
    parameters: z.object({
      num_images: z.number().int().min(1).max(MAX_IMAGES).describe('How many images to make'),
    }),
    // Seed 000's pattern: the tool itself asks for confirmation, with the hint people see.
    execute: async ({ num_images }, toolContext) => {
      if (num_images > threshold) {
        const confirmation = toolContext?.toolConfirmation;
        if (!confirmation) {
          toolContext?.requestConfirmation({ hint: `⚠️ Large request: ${num_images} images` });
          return { status: 'pending', message: 'Waiting for a person to approve the request.' };
        }
        if (!confirmation.confirmed) return { error: 'This tool call is rejected.' };
      }
      return once(toolContext, () => ({
        status: 'approved',
        order_id: `REQ-${num_images}-HUMAN`,
        num_images,
        artifacts: generateImages(num_images),
      }));
    },
  });
  return new LlmAgent({
    name: 'image_studio',
    description: 'Generates images; large requests need approval.',
    model: selectModel(model, 'image-studio', respondImageStudio),
    instruction: INSTRUCTION,
    tools: [tool],
  });
}

/** Seed 000: an agent whose large image requests wait for a human's approval. */
export function createImageStudio(options: ImageStudioOptions): HoldpointApp {
  return defineApp({
    name: 'image-studio',
    label: 'Image Studio',
    description: `Generates images. Batches above ${options.threshold} need a person’s sign-off.`,
    examples: ['Generate 10 images', 'Generate 4 images', 'Generate 1 image'],
    agent: ({ model }) => imageStudioAgent(model, options),
  });
}

/** Requests above HOLDPOINT_IMAGE_THRESHOLD images (default 1) need approval. */
export default createImageStudio({
  threshold: Number(process.env.HOLDPOINT_IMAGE_THRESHOLD ?? 1),
});
