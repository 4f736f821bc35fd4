/**
 * Why a segment stops early: a checkpoint, a tool's effect ledger, an approved call's
 * start mark or a grant's audit line could not be stored. Set by whatever failed; read
 * when the segment ends.
 */
export interface StopCause {
  error?: unknown;
  /** Stops ADK at once, as a lost lease does (set by the segment that drives it). */
  halt?: () => void;
}
