import type { GrantPolicy } from './grants.js';

/**
 * What a person may answer to one tool's approvals beyond approve and reject, as the
 * tool's policy said when it was asked (stored on each approval, shown to deciders).
 */
export interface DecisionPolicy {
  /** Arguments a decider may change before approving: all of them (`true`) or these top-level fields. */
  editable?: true | string[];
  /** The tool has a rule by which some edits need one more approver (`editNeedsApproval`). */
  editMayNeedApproval?: true;
  /** A decider may answer in the tool's place: the answer becomes its result, the tool does not run. */
  respond?: true;
  /** The JSON Schema such an answer must meet, when the tool gives one. */
  respondSchema?: Record<string, unknown>;
  /** The tool's arguments as JSON Schema (to build an edit form), when they are editable. */
  argsSchema?: Record<string, unknown>;
  /** The grants a decider may make with an approval; absent: none. */
  grants?: GrantPolicy;
}
