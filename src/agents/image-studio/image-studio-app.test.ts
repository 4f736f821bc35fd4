import { describe, expect, it } from 'vitest';
import { AppHarness } from '../app-harness.test-support.js';
import { createImageStudioApp } from './image-studio-app.js';
import { parseImageRequest } from './parse-image-request.js';

const CONFIRM = 'adk_request_confirmation';

function pngSize(dataUrl: string): { width: number; height: number } {
  const bytes = Buffer.from(dataUrl.replace('data:image/png;base64,', ''), 'base64');
  expect(bytes.subarray(0, 8)).toEqual(Buffer.from([137, 80, 78, 71, 13, 10, 26, 10]));
  expect(bytes.subarray(12, 16).toString('ascii')).toBe('IHDR');
  return { width: bytes.readUInt32BE(16), height: bytes.readUInt32BE(20) };
}

describe('image-studio', () => {
  it('pauses 10 images for confirmation and generates them once approved', async () => {
    const harness = new AppHarness((options) => createImageStudioApp(options));
    const paused = await harness.say('Generate 10 images');
    const [confirmation] = AppHarness.calls(paused, CONFIRM);
    expect(confirmation?.id).toBeTruthy();
    expect(confirmation?.args?.originalFunctionCall).toMatchObject({
      name: 'request_image_generation',
      args: { num_images: 10 },
    });
    expect(harness.effectRuns).toEqual([]);

    const done = await harness.answer(String(confirmation?.id), CONFIRM, { confirmed: true });
    const [result] = AppHarness.responses(done, 'request_image_generation');
    expect(result).toMatchObject({ status: 'approved', order_id: 'REQ-10-HUMAN', num_images: 10 });
    const artifacts = result?.artifacts as string[];
    expect(artifacts).toHaveLength(10);
    expect(new Set(artifacts).size).toBe(10);
    for (const artifact of artifacts) expect(pngSize(artifact)).toEqual({ width: 48, height: 48 });
    expect(harness.effectRuns).toHaveLength(1);
    expect(AppHarness.text(done)).toBe('Here are the 10 images (order REQ-10-HUMAN).');
  });

  it('does not generate anything when the request is rejected', async () => {
    const harness = new AppHarness((options) => createImageStudioApp(options));
    const [confirmation] = AppHarness.calls(await harness.say('Generate 10 images'), CONFIRM);
    const done = await harness.answer(String(confirmation?.id), CONFIRM, { confirmed: false });
    expect(harness.effectRuns).toEqual([]);
    expect(AppHarness.responses(done, 'request_image_generation')).toEqual([
      { error: 'This tool call is rejected.' },
    ]);
    expect(AppHarness.text(done)).toBe('The request was rejected, so no images were generated.');
  });

  it('generates one image without asking', async () => {
    const harness = new AppHarness((options) => createImageStudioApp(options));
    const events = await harness.say('generate an image');
    expect(AppHarness.calls(events, CONFIRM)).toEqual([]);
    expect(AppHarness.text(events)).toBe('Here is the image (order REQ-1-HUMAN).');
    expect(harness.effectRuns).toHaveLength(1);
  });

  it('honours a higher threshold', async () => {
    const harness = new AppHarness((options) => createImageStudioApp({ ...options, threshold: 5 }));
    const events = await harness.say('make 3 pictures');
    expect(AppHarness.calls(events, CONFIRM)).toEqual([]);
    expect(AppHarness.text(events)).toContain('REQ-3-HUMAN');
  });

  it('answers other text with help and out-of-range counts with the limits', async () => {
    const harness = new AppHarness((options) => createImageStudioApp(options));
    expect(AppHarness.text(await harness.say('hello'))).toMatch(/Generate 10 images/);
    expect(AppHarness.text(await harness.say('generate 80 images'))).toMatch(/between 1 and 50/);
    expect(harness.effectRuns).toEqual([]);
  });

  it('has a hint for large requests', () => {
    const app = createImageStudioApp({ model: 'rules', effects: { once: (_k, f) => f() } });
    expect(app.hints.request_image_generation?.({ num_images: 10 })).toBe(
      '⚠️ Large request: 10 images',
    );
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
