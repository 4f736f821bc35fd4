import type { ClientRequest, IncomingMessage } from 'node:http';
import type { TLSSocket } from 'node:tls';
import { fileURLToPath } from 'node:url';
import react from '@vitejs/plugin-react';
import { defineConfig, type ProxyOptions } from 'vite';

/** Where the dev server forwards `/api` (HTTP and the chat WebSocket). */
const target = process.env.HOLDPOINT_URL ?? 'http://127.0.0.1:3000';

/**
 * The dev server's own pages reach Holdpoint through this proxy, so their `Origin` is
 * the dev server's and Holdpoint would refuse them: the proxy presents them as
 * Holdpoint's own origin. Only them: any other page's `Origin` passes unchanged, and
 * Holdpoint refuses it as it would without the proxy.
 */
const presentOwnPagesAsTarget: ProxyOptions['configure'] = (proxy) => {
  const ownOrigin = (req: IncomingMessage) =>
    `${(req.socket as TLSSocket).encrypted ? 'https' : 'http'}://${req.headers.host}`;
  const rewrite = (proxyReq: ClientRequest, req: IncomingMessage) => {
    if (req.headers.origin === ownOrigin(req)) proxyReq.setHeader('origin', new URL(target).origin);
  };
  proxy.on('proxyReq', (proxyReq, req) => rewrite(proxyReq, req));
  proxy.on('proxyReqWs', (proxyReq, req) => rewrite(proxyReq, req));
};

export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  plugins: [react()],
  // The UI is made of holdpoint/react's components: their source, as the package builds them.
  resolve: {
    alias: [
      {
        find: /^holdpoint\/react$/,
        replacement: fileURLToPath(new URL('../react/src/index.ts', import.meta.url)),
      },
    ],
  },
  build: { outDir: 'dist', emptyOutDir: true },
  server: {
    port: Number(process.env.WEB_PORT ?? 5173),
    proxy: {
      '/api': { target, ws: true, changeOrigin: true, configure: presentOwnPagesAsTarget },
      '/healthz': { target, changeOrigin: true },
    },
  },
});
