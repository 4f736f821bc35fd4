import { vi } from 'vitest';
import { describeCrashes } from './support/crash-suite.js';

// Real OS processes start slowly on a loaded 2-core machine; they are bounded by these
// limits, not timed by them.
vi.setConfig({ testTimeout: 300_000, hookTimeout: 120_000 });

describeCrashes('redis');
