import { fileURLToPath } from 'node:url';
import { build, type PreviewServer, preview } from 'vite';
import { loadConfig } from '../../src/config/config.js';
import { type RunningServer, startServer } from '../../src/main/serve.js';

const webConfig = fileURLToPath(new URL('../../web/vite.config.ts', import.meta.url));

/** The web UI in front of a real in-process Holdpoint server. */
export interface WebUi {
  server: RunningServer;
  /** Where the browser goes: the Holdpoint server itself when it serves `web/dist`. */
  baseUrl: string;
  /** Whether the UI came from the Holdpoint server (else from `vite preview` proxying to it). */
  servedByHoldpoint: boolean;
  close(): Promise<void>;
}

/** Builds `web/dist` (the same `vite build` as the package script). */
export async function buildWeb(): Promise<void> {
  await build({ configFile: webConfig, logLevel: 'warn' });
}

async function servesUi(url: string): Promise<boolean> {
  try {
    const response = await fetch(url);
    return (response.headers.get('content-type') ?? '').includes('text/html');
  } catch {
    return false;
  }
}

/**
 * Starts Holdpoint (`--model rules`, port 0) and, until it serves the UI at `/` itself,
 * a `vite preview` of `web/dist` that proxies `/api` (HTTP and WebSocket) to it.
 */
export async function startWebUi(extraArgs: string[] = []): Promise<WebUi> {
  const server = await startServer(
    loadConfig(['--port', '0', '--log-level', 'silent', '--model', 'rules', ...extraArgs]),
  );
  const target = `http://127.0.0.1:${server.port}`;
  if (await servesUi(`${target}/`)) {
    return { server, baseUrl: target, servedByHoldpoint: true, close: () => server.close() };
  }
  const previewServer: PreviewServer = await preview({
    configFile: webConfig,
    logLevel: 'warn',
    preview: {
      host: '127.0.0.1',
      port: 0,
      proxy: {
        '/api': { target, ws: true },
        '/healthz': { target },
      },
    },
  });
  const address = previewServer.httpServer.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    server,
    baseUrl: `http://127.0.0.1:${port}`,
    servedByHoldpoint: false,
    close: async () => {
      await previewServer.close();
      await server.close();
    },
  };
}
