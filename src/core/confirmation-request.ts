/** ADK's synthetic call that asks a person to confirm a tool call; its id is the approval id. */
export const CONFIRMATION_CALL = 'adk_request_confirmation';

/**
 * What the response of a call waiting for confirmation says, until the real one replaces
 * it: Holdpoint stores it in the confirmation request's own event (see SegmentSessions).
 */
export const AWAITING_CONFIRMATION = {
  status: 'awaiting_confirmation',
  error: 'This tool call is waiting for a person to approve or reject it.',
} as const;
