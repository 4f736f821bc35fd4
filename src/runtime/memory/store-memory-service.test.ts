import { createEvent, createSession } from '@google/adk';
import { describe, expect, it } from 'vitest';
import { codeOf } from '../../core/errors.test-support.js';
import { MemoryStore } from '../../store/memory/memory-store.js';
import { StoreMemoryService } from './store-memory-service.js';

function session(id: string, texts: string[], userId = 'ann') {
  return createSession({
    id,
    appName: 'app',
    userId,
    events: [
      ...texts.map((text, i) =>
        createEvent({
          author: 'agent',
          timestamp: Date.UTC(2026, 10, 25, 10, 0, i),
          content: { role: 'user', parts: [{ text }] },
          customMetadata: { n: i },
        }),
      ),
      createEvent({ author: 'agent', timestamp: 0 }),
    ],
  });
}

describe('StoreMemoryService', () => {
  it('finds what a session added by a shared word, for its app and user only', async () => {
    const memory = new StoreMemoryService(new MemoryStore({ sessionTtlSeconds: 60 }).memories);
    await memory.addSessionToMemory(session('s1', ['Rust has ownership.', 'Bread needs steam.']));
    await memory.addSessionToMemory(session('s2', ['Ownership is checked.'], 'bob'));
    const found = await memory.searchMemory({
      appName: 'app',
      userId: 'ann',
      query: 'ownership rules',
    });
    expect(found.memories).toEqual([
      {
        content: { role: 'user', parts: [{ text: 'Rust has ownership.' }] },
        author: 'agent',
        timestamp: '2026-11-25T10:00:00.000Z',
      },
    ]);
    // Adding the session again replaces what it added.
    await memory.addSessionToMemory(session('s1', ['Bread needs steam.']));
    expect(
      (await memory.searchMemory({ appName: 'app', userId: 'ann', query: 'ownership' })).memories,
    ).toEqual([]);
  });

  it('refuses a session with more memories than it may add', async () => {
    const memory = new StoreMemoryService(new MemoryStore({ sessionTtlSeconds: 60 }).memories);
    const texts = Array.from({ length: 501 }, (_, i) => `fact ${i}`);
    expect(await codeOf(memory.addSessionToMemory(session('big', texts)))).toBe(
      'VALIDATION_FAILED',
    );
  });
});
