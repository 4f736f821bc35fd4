import { type RunningServer, startServer } from '../../src/main/serve.js';
import { exampleConfig } from '../support/example-apps.js';

/** The web UI as `npm start` serves it: the real Holdpoint server serving `web/dist`. */
export interface WebUi {
  server: RunningServer;
  baseUrl: string;
  close(): Promise<void>;
}

/**
 * Starts Holdpoint (`--model rules`, port 0) on the `web/dist` that `npm test` builds
 * first (`npm run build`), and checks that it serves the UI at `/` itself — the
 * browser tests never run against anything else.
 */
export async function startWebUi(extraArgs: string[] = []): Promise<WebUi> {
  const server = await startServer(exampleConfig(...extraArgs));
  const baseUrl = `http://127.0.0.1:${server.port}`;
  const page = await fetch(`${baseUrl}/`);
  if (!(page.headers.get('content-type') ?? '').includes('text/html')) {
    await server.close();
    throw new Error(
      `the server does not serve the web UI at / (status ${page.status}); run npm run build`,
    );
  }
  return { server, baseUrl, close: () => server.close() };
}
