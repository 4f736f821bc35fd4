/** ADK's synthetic call that asks a person to confirm a tool call; its id is the approval id. */
export const CONFIRMATION_CALL = 'adk_request_confirmation';
