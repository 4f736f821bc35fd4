import {
  type CompletedOutcome,
  createHoldpoint,
  type PendingOutcome,
  type RunOutcome,
} from 'holdpoint';
import { describe, expect, it } from 'vitest';
import { createImageStudio } from './app.js';
import { parseImageRequest } from './parse-image-request.js';

function pngSize(dataUrl: string): { width: number; height: number } {
  const bytes = Buffer.from(dataUrl.replace('data:image/png;base64,', ''), 'base64');
  expect(bytes.subarray(0, 8)).toEqual(Buffer.from([137, 80, 78, 71, 13, 10, 26, 10]));
  expect(bytes.subarray(12, 16).toString('ascii')).toBe('IHDR');
  return { width: bytes.readUInt32BE(16), height: bytes.readUInt32BE(20) };
}

function studio(threshold = 1) {
  return createHoldpoint({ apps: [createImageStudio({ threshold })], sweepIntervalSeconds: false });
}

function paused(outcome: RunOutcome): PendingOutcome {
  if (outcome.status !== 'pending_approval') throw new Error(`not paused: ${outcome.status}`);
  return outcome;
}

function completed(outcome: RunOutcome): CompletedOutcome {
  if (outcome.status !== 'completed') throw new Error(`not completed: ${outcome.status}`);
  return outcome;
}

describe('image-studio', () => {
  it('pauses 10 images for confirmation and generates them once approved', async () => {
    const holdpoint = studio();
    const pause = paused(await holdpoint.startRun({ query: 'Generate 10 images' }, 'tester'));
    expect(pause.approvals).toEqual([
      expect.objectContaining({
        kind: 'confirmation',
        toolName: 'request_image_generation',
        args: { num_images: 10 },
        hint: '⚠️ Large request: 10 images',
      }),
    ]);
    const done = completed(
      await holdpoint.resumeRun({ sessionId: pause.sessionId, approved: true }, 'tester'),
    );
    expect(done.result).toBe('Here are the 10 images (order REQ-10-HUMAN).');
    expect(done.artifacts).toHaveLength(10);
    expect(new Set(done.artifacts).size).toBe(10);
    for (const artifact of done.artifacts)
      expect(pngSize(artifact)).toEqual({ width: 48, height: 48 });
  });

  it('does not generate anything when the request is rejected', async () => {
    const holdpoint = studio();
    const pause = paused(await holdpoint.startRun({ query: 'Generate 10 images' }, 'tester'));
    const done = completed(
      await holdpoint.resumeRun({ sessionId: pause.sessionId, approved: false }, 'tester'),
    );
    expect(done.artifacts).toEqual([]);
    expect(done.result).toBe('The request was rejected, so no images were generated.');
  });

  it('says the reason of a rejection, when the person gave one', async () => {
    const holdpoint = studio();
    const pause = paused(await holdpoint.startRun({ query: 'Generate 10 images' }, 'tester'));
    const done = completed(
      await holdpoint.resumeRun(
        { sessionId: pause.sessionId, approved: false, reason: 'too many for a draft' },
        'tester',
      ),
    );
    expect(done.result).toBe(
      'The request was rejected (too many for a draft), so no images were generated.',
    );
  });

  it('generates one image without asking', async () => {
    const done = completed(await studio().startRun({ query: 'generate an image' }, 'tester'));
    expect(done.result).toBe('Here is the image (order REQ-1-HUMAN).');
    expect(done.artifacts).toHaveLength(1);
  });

  it('honours a higher threshold', async () => {
    const done = completed(await studio(5).startRun({ query: 'make 3 pictures' }, 'tester'));
    expect(done.result).toContain('REQ-3-HUMAN');
  });

  it('answers other text with help and out-of-range counts with the limits', async () => {
    const holdpoint = studio();
    const help = completed(await holdpoint.startRun({ query: 'hello' }, 'tester'));
    expect(help.result).toMatch(/Generate 10 images/);
    const limits = completed(await holdpoint.startRun({ query: 'generate 80 images' }, 'tester'));
    expect(limits.result).toMatch(/between 1 and 50/);
    expect(limits.artifacts).toEqual([]);
  });
});

describe('parseImageRequest', () => {
  it.each([
    ['Generate 10 images', 10],
    ['generate an image', 1],
    ['Genera 10 imágenes', 10],
    ['make 3 pictures', 3],
    ['Please create one picture of a cat', 1],
    ['make 2 cat pictures', 2],
    ['Genera una imagen', 1],
  ])('%s → %i', (text, count) => {
    expect(parseImageRequest(text)).toBe(count);
  });

  it.each(['hello', 'delete an image', 'what images do you have?'])('%s → nothing', (text) => {
    expect(parseImageRequest(text)).toBeUndefined();
  });
});
