import type { EffectLedger } from '../core/effect-ledger.js';
import type { AgentApp } from './agent-app.js';
import { createImageStudioApp } from './image-studio/image-studio-app.js';
import { createPaymentsApp } from './payments/payments-app.js';
import { createPickerApp } from './picker/picker-app.js';

/** The app a client gets when it names none. */
export const DEFAULT_APP = 'image-studio';

/** Options shared by every example app. */
export interface CreateAppsOptions {
  /** 'rules' or a Gemini model name. */
  model: string;
  /** Image requests above this many images need approval. */
  imageThreshold: number;
  effects: EffectLedger;
}

/** Every example app, keyed by its name. */
export function createApps(options: CreateAppsOptions): Map<string, AgentApp> {
  const { model, effects } = options;
  const apps = [
    createImageStudioApp({ model, effects, threshold: options.imageThreshold }),
    createPaymentsApp({ model, effects }),
    createPickerApp({ model, effects }),
  ];
  return new Map(apps.map((app) => [app.name, app]));
}
