/** What Holdpoint puts in `message-metadata` of every assistant message it streams. */
export interface ChatMessageMetadata {
  sessionId: string;
  invocationId: string;
  app: string;
  /** Where the run stands after this stream: running, paused or completed. */
  status?: 'running' | 'paused' | 'completed';
  /** ISO time the pause expires, while paused. */
  expiresAt?: string;
}
