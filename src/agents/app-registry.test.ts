import { describe, expect, it } from 'vitest';
import { createApps, DEFAULT_APP } from './app-registry.js';

describe('createApps', () => {
  const effects = { once: <T>(_key: string, effect: () => Promise<T>) => effect() };

  it('creates the three example apps with the default among them', () => {
    const apps = createApps({ model: 'rules', imageThreshold: 1, effects });
    expect([...apps.keys()]).toEqual(['image-studio', 'payments', 'picker']);
    expect(apps.has(DEFAULT_APP)).toBe(true);
    expect(apps.get('picker')?.rootAgent.name).toBe('orchestrator');
  });

  it('passes a model name through to ADK when not using rules', () => {
    const apps = createApps({ model: 'gemini-2.5-flash', imageThreshold: 1, effects });
    const agent = apps.get('payments')?.rootAgent as unknown as { model: unknown };
    expect(agent.model).toBe('gemini-2.5-flash');
  });
});
