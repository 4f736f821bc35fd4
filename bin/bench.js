#!/usr/bin/env node
// Runs the TypeScript benchmark through tsx, like bin/holdpoint.js runs the server.
import { register } from 'tsx/esm/api';

register();
await import('../bench/main.ts');
