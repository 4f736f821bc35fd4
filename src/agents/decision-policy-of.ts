import { z } from 'zod';
import type { DecisionPolicy } from '../core/decision-policy.js';
import { entryOf } from '../core/tool-entry.js';
import type { AgentApp } from './agent-app.js';
import { argsJsonSchema, findTool } from './tool-schema.js';

/**
 * What `app`'s deciders may answer to an approval of `toolName` beyond approve and
 * reject (stored on the approval when its pause is saved, for UIs to offer; no grants
 * where the call needs more than one approver): undefined
 * when the tool has no such rules, so ordinary pauses carry nothing more.
 */
export function decisionPolicyOf(app: AgentApp, toolName: string): DecisionPolicy | undefined {
  const rules = entryOf(app.decisionRules, toolName);
  if (!rules) return undefined;
  const argsSchema = rules.editable ? argsJsonSchema(findTool(app.rootAgent, toolName)) : undefined;
  const policy: DecisionPolicy = {
    ...(rules.editable && { editable: rules.editable === true ? true : [...rules.editable] }),
    ...(rules.editable && rules.editNeedsApproval && { editMayNeedApproval: true as const }),
    ...(rules.respond && { respond: true as const }),
    ...(rules.respondSchema && {
      respondSchema: z.toJSONSchema(rules.respondSchema, { unrepresentable: 'any' }) as Record<
        string,
        unknown
      >,
    }),
    ...(argsSchema && { argsSchema }),
    ...(rules.grants &&
      // One approver cannot grant what needs several (judgeRichDecisions refuses it).
      (entryOf(app.approvers, toolName)?.quorum ?? 1) <= 1 && {
        grants: { ...rules.grants, scopes: [...rules.grants.scopes] },
      }),
  };
  return Object.keys(policy).length > 0 ? policy : undefined;
}
