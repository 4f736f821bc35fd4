/** The example apps the server ships, with what to try in each. */
export interface AppInfo {
  id: string;
  label: string;
  description: string;
  examples: string[];
}

export const APPS: AppInfo[] = [
  {
    id: 'image-studio',
    label: 'Image Studio',
    description: 'Generates images. Batches above the threshold need a person’s sign-off.',
    examples: ['Generate 10 images', 'Generate 4 images', 'Generate 1 image'],
  },
  {
    id: 'payments',
    label: 'Payments',
    description: 'Sends money. Every payment waits for an approval.',
    examples: ['Send $200 to Jiro', 'Send 50 EUR to Ana and $20 to Bob'],
  },
  {
    id: 'picker',
    label: 'Picker',
    description: 'A sub-agent asks a person to pick an item, then to confirm it.',
    examples: ['Pick a fruit', 'Help me choose a color'],
  },
];

export const DEFAULT_APP = 'image-studio';

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

export function appInfo(id: string): AppInfo {
  return APPS.find((app) => app.id === id) ?? { id, label: id, description: '', examples: [] };
}
