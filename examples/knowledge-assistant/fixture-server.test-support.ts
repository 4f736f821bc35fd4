import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { pdfWithText } from './pdf-fixture.test-support.js';

/** The documents the knowledge assistant's tests read, served over real HTTP. */
export const FIXTURE_TEXT = {
  pdf: [
    'Rust ownership rules keep memory safe without a garbage collector.',
    'The borrow checker enforces borrowing rules at compile time.',
    'Bread is best baked at a high temperature.',
  ],
  page:
    '<html><head><title>Lifetimes explained</title></head><body><nav>Home | Blog | About</nav>' +
    '<article><h1>Lifetimes explained</h1>' +
    '<p>Lifetimes tell the Rust compiler how long references stay valid.</p>' +
    '<p>Every reference in Rust has a lifetime, most of them inferred.</p>' +
    '<p>The weather was lovely on the day this post was written.</p></article>' +
    '<footer>(c) 2026 Example</footer></body></html>',
  transcript: [
    'Welcome back to the channel.',
    'Today we talk about ownership in the Rust language.',
    'Ownership means each value has exactly one owner at a time.',
  ],
  unrelated:
    '<html><head><title>Sourdough</title></head><body><article><h1>Sourdough</h1>' +
    '<p>Sourdough bread needs a lively starter and a long, cool proof.</p>' +
    '<p>Bake it in a hot oven with plenty of steam for a crisp crust.</p></article></body></html>',
};

export const VIDEO_ID = 'dQw4w9WgXcQ';

/** A local server for the documents; `/transcripts/<id>` plays the YouTube transcript service. */
export class FixtureServer {
  private constructor(
    private readonly server: Server,
    readonly url: string,
  ) {}

  static async start(): Promise<FixtureServer> {
    const pdf = pdfWithText(FIXTURE_TEXT.pdf);
    const server = createServer((request, response) => {
      const path = request.url ?? '/';
      if (path === '/docs/rust.pdf') {
        response.writeHead(200, { 'content-type': 'application/pdf' }).end(pdf);
      } else if (path === '/blog/lifetimes') {
        response.writeHead(200, { 'content-type': 'text/html' }).end(FIXTURE_TEXT.page);
      } else if (path === '/go/lifetimes') {
        response.writeHead(302, { location: '/blog/lifetimes' }).end();
      } else if (path === '/go/around') {
        response.writeHead(302, { location: '/go/around' }).end();
      } else if (path === '/blog/long') {
        const paragraph = '<p>Ownership keeps Rust programs memory safe, one owner at a time.</p>';
        response
          .writeHead(200, { 'content-type': 'text/html' })
          .end(`<html><body><article>${paragraph.repeat(100)}</article></body></html>`);
      } else if (path === '/blog/sourdough') {
        response.writeHead(200, { 'content-type': 'text/html' }).end(FIXTURE_TEXT.unrelated);
      } else if (path === `/transcripts/${VIDEO_ID}`) {
        const transcript = FIXTURE_TEXT.transcript.map((text, i) => ({ text, start: i * 4 }));
        response
          .writeHead(200, { 'content-type': 'application/json' })
          .end(JSON.stringify({ title: 'Rust ownership in 3 minutes', transcript }));
      } else {
        response.writeHead(404).end('not found');
      }
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const { port } = server.address() as AddressInfo;
    return new FixtureServer(server, `http://127.0.0.1:${port}`);
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    this.server.close();
    await once(this.server, 'close');
  }
}
