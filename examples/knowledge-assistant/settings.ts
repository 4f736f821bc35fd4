import { z } from 'zod';
import type { DocumentSettings } from './documents.js';

/** What a host can change about the knowledge assistant. */
export interface KnowledgeSettings extends DocumentSettings {
  /** Names the user may give that are not accepted before the conversation ends. */
  nameAttemptLimit: number;
  /** The relevance (0–1) at which a document counts for a domain. */
  relevanceThreshold: number;
  /** The most knowledge domains one user may have; saving one more is an error. */
  maxDomains: number;
}

const settingsSchema = z.strictObject({
  nameAttemptLimit: z.number().int().min(1).max(20),
  relevanceThreshold: z.number().min(0).max(1),
  maxDomains: z.number().int().min(1).max(1000),
  youtubeTranscriptUrl: z.union([z.url({ protocol: /^https?$/ }), z.literal('')]),
  maxBytes: z
    .number()
    .int()
    .min(1024)
    .max(100 * 1024 * 1024),
  timeoutMs: z.number().int().min(100).max(120_000),
  maxTextChars: z.number().int().min(100).max(200_000),
  allowPrivateNetworks: z.boolean(),
});

export const DEFAULT_SETTINGS: KnowledgeSettings = {
  nameAttemptLimit: 3,
  relevanceThreshold: 0.3,
  maxDomains: 100,
  youtubeTranscriptUrl: '',
  maxBytes: 10 * 1024 * 1024,
  timeoutMs: 15_000,
  maxTextChars: 20_000,
  allowPrivateNetworks: false,
};

/** `overrides` over the defaults, checked; throws naming the field that is wrong. */
export function knowledgeSettings(overrides: Partial<KnowledgeSettings> = {}): KnowledgeSettings {
  const merged = { ...DEFAULT_SETTINGS, ...overrides };
  const parsed = settingsSchema.safeParse(merged);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new Error(`knowledge-assistant settings: ${issue?.path.join('.')}: ${issue?.message}`);
  }
  return parsed.data;
}

/** The settings the environment gives (`KNOWLEDGE_*`), over the defaults. */
export function settingsFromEnv(env: NodeJS.ProcessEnv = process.env): KnowledgeSettings {
  const number = (name: string) => (env[name] ? Number(env[name]) : undefined);
  const given: Partial<KnowledgeSettings> = {
    nameAttemptLimit: number('KNOWLEDGE_NAME_ATTEMPTS'),
    relevanceThreshold: number('KNOWLEDGE_RELEVANCE_THRESHOLD'),
    maxDomains: number('KNOWLEDGE_MAX_DOMAINS'),
    youtubeTranscriptUrl: env.KNOWLEDGE_YOUTUBE_TRANSCRIPT_URL,
    maxBytes: number('KNOWLEDGE_MAX_BYTES'),
    timeoutMs: number('KNOWLEDGE_FETCH_TIMEOUT_MS'),
    allowPrivateNetworks: env.KNOWLEDGE_ALLOW_PRIVATE_NETWORKS
      ? env.KNOWLEDGE_ALLOW_PRIVATE_NETWORKS === 'true'
      : undefined,
  };
  return knowledgeSettings(
    Object.fromEntries(Object.entries(given).filter(([, v]) => v !== undefined)),
  );
}
