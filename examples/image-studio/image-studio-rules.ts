import type { LlmRequest } from '@google/adk';
import type { Content } from '@google/genai';
import {
  functionResponsesOf,
  lastContent,
  lastUserText,
  textReply,
  toolCall,
} from '../shared/llm-history.js';
import { parseImageRequest } from './parse-image-request.js';

/** The image-generation tool's name, shared by the tool and its rules. */
export const IMAGE_TOOL = 'request_image_generation';
/** The most images one request may ask for. */
export const MAX_IMAGES = 50;

const HELP =
  'I generate images. Ask for example "Generate 10 images" or "generate an image" ' +
  `(1 to ${MAX_IMAGES} per request).`;

/** The image-studio rules: a request becomes a tool call, a tool result becomes a reply. */
export function respondImageStudio(request: LlmRequest): Content {
  const result = functionResponsesOf(lastContent(request)).find((r) => r.name === IMAGE_TOOL);
  if (result) {
    const response = result.response ?? {};
    if (response.status === 'approved') {
      const what =
        response.num_images === 1 ? 'is the image' : `are the ${response.num_images} images`;
      return textReply(`Here ${what} (order ${response.order_id}).`);
    }
    // The person's reason, when they gave one, comes with the rejection: say it.
    const reason = typeof response.reason === 'string' ? ` (${response.reason})` : '';
    return textReply(`The request was rejected${reason}, so no images were generated.`);
  }
  const count = parseImageRequest(lastUserText(request) ?? '');
  if (count === undefined) return textReply(HELP);
  if (count < 1 || count > MAX_IMAGES) {
    return textReply(`I can generate between 1 and ${MAX_IMAGES} images per request.`);
  }
  return toolCall(IMAGE_TOOL, { num_images: count });
}
