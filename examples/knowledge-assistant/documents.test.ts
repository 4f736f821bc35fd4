import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { classifyUrl, DocumentError, firstUrl, readDocument, youtubeVideoId } from './documents.js';
import { FixtureServer } from './fixture-server.test-support.js';
import { knowledgeSettings } from './settings.js';

let fixtures: FixtureServer;
beforeAll(async () => {
  fixtures = await FixtureServer.start();
});
afterAll(() => fixtures.stop());

async function failure(promise: Promise<unknown>): Promise<string | undefined> {
  try {
    await promise;
    return undefined;
  } catch (error) {
    return error instanceof DocumentError ? error.code : String(error);
  }
}

describe('documents', () => {
  it('finds the first link of a message and tells what it is', () => {
    expect(firstUrl('read https://a.example/x.pdf, then http://b.example')).toBe(
      'https://a.example/x.pdf',
    );
    expect(firstUrl('no link here')).toBeUndefined();
    expect(classifyUrl('https://a.example/paper.PDF')).toBe('pdf');
    expect(classifyUrl('https://www.youtube.com/watch?v=dQw4w9WgXcQ')).toBe('youtube');
    expect(classifyUrl('https://youtu.be/dQw4w9WgXcQ')).toBe('youtube');
    expect(classifyUrl('https://www.youtube.com/feed/trending')).toBe('page');
    expect(youtubeVideoId('https://m.youtube.com/shorts/abcdefGHIJ1')).toBe('abcdefGHIJ1');
  });

  it('refuses links to this machine or a private network unless they are allowed', async () => {
    const settings = knowledgeSettings();
    const port = new URL(fixtures.url).port;
    for (const host of [
      '127.0.0.1',
      'localhost',
      '[::1]',
      '[::ffff:127.0.0.1]',
      '10.1.2.3',
      '169.254.169.254',
    ]) {
      expect(
        await failure(readDocument(`http://${host}:${port}/blog/lifetimes`, 'page', settings)),
        host,
      ).toBe('PRIVATE_ADDRESS');
    }
    const allowed = knowledgeSettings({ allowPrivateNetworks: true });
    const page = await readDocument(`${fixtures.url}/blog/lifetimes`, 'page', allowed);
    expect(page).toMatchObject({
      url_type: 'page',
      title: 'Lifetimes explained',
      truncated: false,
    });
    expect(await failure(readDocument('file:///etc/passwd', 'page', allowed))).toBe('BAD_URL');
    const redirected = await readDocument(`${fixtures.url}/go/lifetimes`, 'page', allowed);
    expect(redirected.title).toBe('Lifetimes explained');
    expect(await failure(readDocument(`${fixtures.url}/go/around`, 'page', allowed))).toBe(
      'FETCH_FAILED',
    );
  });

  it('reads at most maxBytes and cuts the text at maxTextChars', async () => {
    const small = knowledgeSettings({ allowPrivateNetworks: true, maxBytes: 1024 });
    expect(await failure(readDocument(`${fixtures.url}/blog/long`, 'page', small))).toBe(
      'TOO_LARGE',
    );
    const short = knowledgeSettings({ allowPrivateNetworks: true, maxTextChars: 100 });
    const pdf = await readDocument(`${fixtures.url}/docs/rust.pdf`, 'pdf', short);
    expect(pdf).toMatchObject({ url_type: 'pdf', truncated: true });
    expect(pdf.text).toHaveLength(100);
    expect(await failure(readDocument(`${fixtures.url}/blog/lifetimes`, 'pdf', short))).toBe(
      'NOT_A_PDF',
    );
  });
});
