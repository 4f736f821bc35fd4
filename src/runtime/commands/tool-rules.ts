import type { AgentApp } from '../../agents/agent-app.js';
import { appHint } from '../../agents/app-hint.js';
import { argsIssue, argsJsonSchema, findTool, schemaIssue } from '../../agents/tool-schema.js';
import type { AppToolRules, ToolRules } from '../../session/decision/rich-decisions.js';

/**
 * The rules of `app`'s tools that have any (define-app's `editable`, `respond`, `grants`
 * …), as the session's rules of rich decisions read them: with the tool's own schema and
 * the app's hint to check and describe what a decider gives.
 */
export function toolRulesOf(app: AgentApp): AppToolRules {
  return Object.fromEntries(
    Object.entries(app.decisionRules ?? {}).map(([toolName, rules]): [string, ToolRules] => {
      const tool = () => findTool(app.rootAgent, toolName);
      const { respondSchema } = rules;
      return [
        toolName,
        {
          editable: rules.editable,
          editNeedsApproval: rules.editNeedsApproval,
          respond: rules.respond,
          grants: rules.grants,
          argsIssue: (args) => argsIssue(tool(), args),
          responseIssue: (response) =>
            respondSchema ? schemaIssue(respondSchema, response) : undefined,
          argumentNames: () => {
            const properties = argsJsonSchema(tool())?.properties;
            return typeof properties === 'object' && properties !== null
              ? Object.keys(properties)
              : undefined;
          },
          hint: (args) => appHint(app.hints, toolName, args),
        },
      ];
    }),
  );
}
