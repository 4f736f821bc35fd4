// holdpoint/react: Holdpoint's approvals in your own React app. A provider that reaches
// the server, hooks for the caller's inbox (live) and one approval, and the components
// Holdpoint's own web UI is made of. Unstyled but for class names; `holdpoint/react/styles.css`
// is an optional stylesheet, themed by its `--hp-*` custom properties (docs/react.md).

// Reaching the server.
export { HoldpointProvider, type HoldpointProviderProps, useHoldpoint } from './holdpoint-provider.js';
export {
  type ApprovalPage,
  type ApprovalsQuery,
  createHoldpointClient,
  type HeadersSource,
  type HoldpointClient,
  type HoldpointClientOptions,
} from './client/holdpoint-client.js';
export { ApiError, toApiError, UNREACHABLE } from './client/api-error.js';
export { type ListPage, type PagedList, usePagedList } from './client/use-paged-list.js';
export type * from './client/api-types.js';

// Hooks.
export { type InboxFeed, useInboxFeed, useInboxRefresh } from './hooks/inbox-feed.js';
export { type PendingApprovals, usePendingApprovals } from './hooks/use-pending-approvals.js';
export { type ApprovalState, useApproval } from './hooks/use-approval.js';
export {
  type DecideApproval,
  type DecisionChoice,
  useDecideApproval,
} from './hooks/use-decide-approval.js';

// Components.
export { ApprovalInbox, type ApprovalInboxProps } from './inbox/approval-inbox.js';
export { ApprovalCard, type ApprovalCardProps, type ItemOutcome } from './inbox/approval-card.js';
export { ApprovalDialog } from './approvals/approval-dialog.js';
export { ArgumentList } from './approvals/argument-list.js';
export { ChangeList, valueText } from './approvals/change-list.js';
export { TimeLeft } from './approvals/time-left.js';
export { ErrorNotice } from './ui/error-notice.js';

// What the components show, as functions: the approval as the UI models it, its answer.
export {
  type ApprovalRequest,
  argsState,
  fromApi,
  humanizeToolName,
  inputShape,
} from './approvals/approval-request.js';
export { askedPeople, waitingFor } from './approvals/approvers-text.js';
export { argsDiff, type FieldChange } from './approvals/args-diff.js';
export { decisionSource, decisionVerb } from './approvals/decision-source.js';
export { type InputChoice, inputAnswer, rejectIsAnswer } from './approvals/input-answer.js';
export {
  decisionBody,
  type FieldError,
  fieldErrorOf,
  isRich,
  type RichApproval,
  stillWaitsNote,
  withStreamField,
} from './approvals/rich-approval.js';
export { formatClock, formatDuration } from './ui/relative-time.js';
export { useNow } from './ui/use-now.js';
