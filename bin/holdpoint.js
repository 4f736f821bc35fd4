#!/usr/bin/env node
// The command line, compiled by `npm run build` (into dist/ of the published package).
await import('../dist/bin/holdpoint.js');
