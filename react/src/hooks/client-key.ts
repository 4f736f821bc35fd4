import type { HoldpointClient } from '../client/holdpoint-client.js';

const keys = new WeakMap<HoldpointClient, number>();

/** A number naming `client` among this page's clients: a hook's reads start over with a new one. */
export function clientKey(client: HoldpointClient): number {
  let key = keys.get(client);
  if (key === undefined) {
    key = nextKey++;
    keys.set(client, key);
  }
  return key;
}

let nextKey = 0;
