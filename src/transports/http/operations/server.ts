import * as wire from '../wire/index.js';
import { defineOperation } from './operation.js';

/** Who calls, what the server serves, and whether it is healthy. */
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
    summary: 'The apps the server serves, the default first.',
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
    summary: 'Whether the store answers: 200, or 503 when it does not. Needs no identity.',
    public: true,
    act: ({ runtime }) => runtime.health(),
    answer: wire.health,
    present: (health) => health,
    status: (health) => (health.status === 'ok' ? 200 : 503),
  }),
];
