import { defineApp } from 'holdpoint';
import approvalTools from './approval-tools-app.js';

/**
 * Test support: the approval tools behind a two-person rule — `always_confirm` waits for
 * two people with the approver role, neither the one who asked, so one vote leaves it pending.
 */
export const quorumApp = defineApp({
  name: 'quorum',
  agent: approvalTools.agent,
  approvals: {
    always_confirm: {
      hint: (args) => `Move ${String(args.amount)} credits?`,
      approvers: { roles: ['approver'], quorum: 2, requesterMayApprove: false },
    },
  },
});
