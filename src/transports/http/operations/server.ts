import type { z } from 'zod';
import type { StoreStats } from '../../../store/store.js';
import * as wire from '../wire/index.js';
import { defineOperation } from './operation.js';

/** The store's statistics as the API (and `holdpoint db stats`) shows them: absent figures left out. */
export function presentStoreStats(stats: StoreStats): z.input<typeof wire.storeStats> {
  const { kind, schemaVersion, sessions, paused, running, deliveries, grants, bytes } = stats;
  return {
    kind,
    ...(schemaVersion === undefined ? {} : { schema_version: schemaVersion }),
    ...(sessions === undefined ? {} : { sessions }),
    paused,
    running,
    ...(deliveries === undefined ? {} : { deliveries }),
    ...(grants === undefined ? {} : { grants }),
    ...(bytes === undefined ? {} : { bytes }),
  };
}

/** Who calls, what the server serves, whether it is healthy, and what its store holds. */
export const serverOperations = [
  defineOperation({
    name: 'getMe',
    method: 'get',
    path: '/api/me',
    summary: 'Who the server takes the caller for, how it knows, and where they sign out.',
    act: async ({ by }) => by,
    answer: wire.me,
    present: ({ id, roles }, { identity, mount }) => ({
      principal: { id, roles: [...roles] },
      auth_mode: identity.mode,
      ...(identity.loginRoutes ? { logout_url: `${mount}/auth/logout` } : {}),
    }),
  }),
  defineOperation({
    name: 'listApps',
    method: 'get',
    path: '/api/apps',
    summary:
      'The apps the server serves (`name`, `label`, `description`, `examples`), the default first and as `default_app`.',
    act: async ({ runtime }) => runtime.apps,
    answer: wire.apps,
    present: (apps) => ({
      apps: apps.map(({ name, label, description, examples, fingerprint }) => ({
        name,
        label,
        description,
        examples,
        fingerprint,
      })),
      default_app: apps[0]?.name,
    }),
  }),
  defineOperation({
    name: 'health',
    method: 'get',
    path: '/healthz',
    summary:
      'Whether the store answers and takes writes: 200, or 503 when it does not answer or its writes fail. Needs no identity.',
    public: true,
    act: ({ runtime }) => runtime.health(),
    answer: wire.health,
    present: (health) => health,
    status: (health) => (health.status === 'ok' ? 200 : 503),
  }),
  defineOperation({
    name: 'getStoreStats',
    method: 'get',
    path: '/api/store',
    summary:
      'What the store holds: its kind, schema version, sessions, paused, running, deliveries, grants and bytes (admins).',
    act: ({ by, runtime }) => runtime.operations.getStoreStats({}, by),
    answer: wire.storeStats,
    present: presentStoreStats,
  }),
];
