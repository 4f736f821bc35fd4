import { describe, expect, it } from 'vitest';
import type { Approvers } from '../core/types.js';
import type { AgentApp } from './agent-app.js';
import { decisionPolicyOf } from './decision-policy-of.js';

const approvers = (quorum: number): Approvers => ({
  owner: true,
  roles: [],
  users: [],
  quorum,
  requesterMayApprove: true,
});

function app(quorum: number): AgentApp {
  return {
    name: 'shop',
    rootAgent: { subAgents: [] },
    decisionRules: { tip: { respond: true, grants: { scopes: ['session'], maxHours: 1 } } },
    approvers: { tip: approvers(quorum) },
  } as unknown as AgentApp;
}

describe('decisionPolicyOf', () => {
  it('offers grants only where one approver settles the call (the runtime refuses others)', () => {
    expect(decisionPolicyOf(app(1), 'tip')).toEqual({
      respond: true,
      grants: { scopes: ['session'], maxHours: 1 },
    });
    expect(decisionPolicyOf(app(2), 'tip')).toEqual({ respond: true });
  });
});
