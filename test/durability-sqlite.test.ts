import { vi } from 'vitest';
import { describeDurability } from './support/durability-suite.js';

// Real OS processes start slowly on a loaded 2-core machine; they are bounded by these
// limits, not timed by them.
vi.setConfig({ testTimeout: 120_000, hookTimeout: 180_000 });

// The durability scenarios on SQLite (one data directory, its processes one after another).
describeDurability('sqlite');
