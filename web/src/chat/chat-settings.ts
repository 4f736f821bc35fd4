/** How the chat talks to the server. */
export type ConnectionMode = 'sse' | 'ws';

export const MODES: { id: ConnectionMode; label: string; description: string }[] = [
  {
    id: 'sse',
    label: 'SSE · two turns',
    description: 'The stream ends at an approval; your answer starts the second turn.',
  },
  {
    id: 'ws',
    label: 'WebSocket · continuous',
    description: 'One stream stays open at the approval and carries the result.',
  },
];
