import { describe, expect, it } from 'vitest';
import { INBOX_CHANNEL } from '../../store/inbox-news.js';
import { MemoryRelay } from '../../store/memory/memory-relay.js';
import {
  INBOX_DELEGATORS_TTL_MS,
  INBOX_WATCHES_PER_PRINCIPAL,
  InboxWatches,
} from './inbox-watch.js';

const BOB = { id: 'bob', roles: ['approver'] };
const noop = () => {};

describe('an inbox watch', () => {
  it("hears news of its principal's audiences only, in order", async () => {
    const relay = new MemoryRelay();
    const heard: string[] = [];
    let last: () => void = () => {};
    const arrived = new Promise<void>((resolve) => {
      last = resolve;
    });
    const stop = await new InboxWatches(relay).watch(
      BOB,
      () => {
        heard.push('news');
        last();
      },
      noop,
    );
    relay.publish(INBOX_CHANNEL, { audiences: ['user:ann', 'role:admin'] });
    relay.publish(INBOX_CHANNEL, { something: 'else' });
    relay.publish(INBOX_CHANNEL, { audiences: ['role:approver'] });
    await arrived;
    // The relay keeps publish order: had either earlier message counted, it came first.
    expect(heard).toEqual(['news']);
    relay.publish(INBOX_CHANNEL, { audiences: ['user:bob'] });
    await expect.poll(() => heard.length).toBe(2);
    await stop();
  });

  it('is bounded per principal, and a stopped one makes room', async () => {
    const watches = new InboxWatches(new MemoryRelay());
    const held = [];
    for (let i = 0; i < INBOX_WATCHES_PER_PRINCIPAL; i++)
      held.push(await watches.watch(BOB, noop, noop));
    await expect(watches.watch(BOB, noop, noop)).rejects.toMatchObject({
      code: 'TOO_MANY_INBOX_STREAMS',
      details: { max_streams: INBOX_WATCHES_PER_PRINCIPAL },
    });
    await watches.watch({ id: 'ann', roles: [] }, noop, noop);
    await held[0]?.();
    await held[0]?.();
    await watches.watch(BOB, noop, noop);
    await expect(watches.watch(BOB, noop, noop)).rejects.toMatchObject({
      code: 'TOO_MANY_INBOX_STREAMS',
    });
  });

  it('is told to end when the process stops, unless it ended already', async () => {
    const watches = new InboxWatches(new MemoryRelay());
    const ended: string[] = [];
    await watches.watch(BOB, noop, () => ended.push('open'));
    const stop = await watches.watch(BOB, noop, () => ended.push('stopped'));
    await stop();
    watches.endAll();
    expect(ended).toEqual(['open']);
  });

  it('hears news of those who left their approvals to its principal, read again when stale', async () => {
    const relay = new MemoryRelay();
    let now = 1_000_000;
    let delegators: string[] = ['ann'];
    let reads = 0;
    const watches = new InboxWatches(
      relay,
      async () => {
        reads += 1;
        return delegators;
      },
      () => now,
    );
    let heard = 0;
    const stop = await watches.watch(BOB, () => (heard += 1), noop);
    relay.publish(INBOX_CHANNEL, { audiences: ['user:ann'] });
    await expect.poll(() => heard).toBe(1);
    // carl leaves his approvals to bob after the watch opened: heard once what was read is stale.
    delegators = ['ann', 'carl'];
    relay.publish(INBOX_CHANNEL, { audiences: ['user:carl'] });
    relay.publish(INBOX_CHANNEL, { audiences: ['user:ann'] });
    await expect.poll(() => heard).toBe(2);
    expect(reads).toBe(1);
    now += INBOX_DELEGATORS_TTL_MS;
    relay.publish(INBOX_CHANNEL, { audiences: ['user:carl'] });
    await expect.poll(() => heard).toBe(3);
    expect(reads).toBe(2);
    // News for someone unrelated costs no read while what was read is fresh.
    relay.publish(INBOX_CHANNEL, { audiences: ['user:dora'] });
    relay.publish(INBOX_CHANNEL, { audiences: ['role:approver'] });
    await expect.poll(() => heard).toBe(4);
    expect(reads).toBe(2);
    await stop();
  });
});
