import type { Principal } from '../../../core/principal.js';
import { presentDelegation } from '../present.js';
import * as wire from '../wire/index.js';
import { defineOperation } from './operation.js';

/** The person a path names: `me` is the caller. */
function named(userId: string | undefined, by: Principal): string {
  return userId === 'me' ? by.id : (userId ?? '');
}

/** `/api/delegations/:userId`: a person's out-of-office delegation (theirs, or an admin's). */
export const delegationOperations = [
  defineOperation({
    name: 'getDelegation',
    method: 'get',
    path: '/api/delegations/:userId',
    summary: "A person's out-of-office delegation (`me`: the caller's), or null.",
    description: 'For the person or an admin.',
    act: ({ params, by, runtime }) =>
      runtime.operations.getDelegation(named(params.userId, by), by),
    answer: wire.delegationAnswer,
    present: presentDelegation,
  }),
  defineOperation({
    name: 'setDelegation',
    method: 'put',
    path: '/api/delegations/:userId',
    summary:
      "Leaves a person's approvals to a delegate until `until` (from `from`, default now), replacing an earlier delegation.",
    description:
      '`from` and `until` are ISO 8601 times; `me` is the caller. While in force, the delegate sees and decides what the person may (their decisions record `on_behalf_of`). For the person or an admin.',
    body: wire.delegationBody,
    act: ({ params, body, by, runtime }) =>
      runtime.operations.setDelegation(
        {
          userId: named(params.userId, by),
          delegate: body.delegate,
          ...(body.from === undefined ? {} : { from: Date.parse(body.from) }),
          until: Date.parse(body.until),
          reason: body.reason,
        },
        by,
      ),
    answer: wire.delegationAnswer,
    present: presentDelegation,
  }),
  defineOperation({
    name: 'clearDelegation',
    method: 'delete',
    path: '/api/delegations/:userId',
    summary: "Ends a person's out-of-office delegation (`me`: the caller's) now.",
    description: 'For the person or an admin.',
    act: ({ params, by, runtime }) =>
      runtime.operations.clearDelegation(named(params.userId, by), by),
    answer: wire.delegationCleared,
    present: (cleared) => ({ cleared }),
  }),
];
