/** What Holdpoint puts in `message-metadata` of every assistant message it streams. */
export interface ChatMessageMetadata {
  sessionId: string;
  invocationId: string;
  app: string;
  /** Where the run stands. */
  status?: 'running' | 'paused' | 'completed' | 'failed' | 'cancelled' | 'expired';
  /** ISO time the pause expires, while paused. */
  expiresAt?: string;
}
