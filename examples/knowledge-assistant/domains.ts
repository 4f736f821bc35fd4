import type { Context } from '@google/adk';
import { STATE } from './state-keys.js';

/** A knowledge domain of one user: what documents are scored against. */
export interface Domain {
  domain_id: string;
  name: string;
  description: string;
  keywords: string[];
  /** Only active domains are scored against documents. */
  active: boolean;
  created_at: string;
  updated_at: string;
}

/** What a person approves for a domain: the prettified draft. */
export interface DomainDraft {
  name: string;
  description: string;
  keywords: string[];
}

/**
 * The user's domains, from ADK `user:` state: the store keeps it per app and user
 * (Redis in production), so domains outlive the session that made them.
 */
export function userDomains(context: Pick<Context, 'state'>): Domain[] {
  const stored = context.state.get<unknown>(STATE.domains);
  return Array.isArray(stored) ? (stored as Domain[]) : [];
}

/** The user's domain `domainId`, if it exists (domains are per user, so it is theirs). */
export function findDomain(context: Pick<Context, 'state'>, domainId: string): Domain | undefined {
  return userDomains(context).find((d) => d.domain_id === domainId);
}

/**
 * Saves `draft` as a new domain, or over `domainId`; returns the saved domain, or an
 * error when the domain to update is gone or the user has `maxDomains` already.
 */
export function saveDomain(
  context: Pick<Context, 'state'>,
  draft: DomainDraft,
  domainId: string | undefined,
  now: Date,
  maxDomains: number,
): Domain | { error: string } {
  const domains = userDomains(context);
  const at = now.toISOString();
  if (domainId) {
    const index = domains.findIndex((d) => d.domain_id === domainId);
    const current = domains[index];
    if (!current) return { error: `Domain ${domainId} no longer exists.` };
    const updated = { ...current, ...draft, updated_at: at };
    context.state.set(
      STATE.domains,
      domains.map((d, i) => (i === index ? updated : d)),
    );
    return updated;
  }
  if (domains.length >= maxDomains) {
    return { error: `You already have ${maxDomains} domain(s), the most you may have.` };
  }
  const next = 1 + Math.max(0, ...domains.map((d) => Number(d.domain_id.slice(2)) || 0));
  const created: Domain = {
    domain_id: `d-${next}`,
    ...draft,
    active: true,
    created_at: at,
    updated_at: at,
  };
  context.state.set(STATE.domains, [...domains, created]);
  return created;
}

const STOP_WORDS = new Set(
  (
    'about above after again also and any are because been before being between both but can ' +
    'could does doing down during each from further have having here how into its itself just ' +
    'more most other our out over own same should some such than that the their them then there ' +
    'these they this those through under until very was were what when where which while who ' +
    'whom why will with would you your my me we all not only'
  ).split(' '),
);

/** The words of `text` worth matching: lower case, 3+ letters, no stop words. */
export function significantWords(text: string): string[] {
  return (text.toLowerCase().match(/[\p{L}\p{N}][\p{L}\p{N}+#-]*/gu) ?? []).filter(
    (w) => w.length >= 3 && !STOP_WORDS.has(w),
  );
}

function capitalize(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

/**
 * The offline prettifier: a title-cased name from the draft's first words (or what
 * precedes a colon), its text as a tidy sentence, and up to six keywords by frequency.
 */
export function prettifyDraft(draft: string): DomainDraft {
  const text = draft.replace(/\s+/g, ' ').trim();
  const head = text.includes(':') ? text.slice(0, text.indexOf(':')) : text;
  const name = head
    .split(' ')
    .slice(0, 4)
    .map((w) => capitalize(w.replace(/[^\p{L}\p{N}+#-]/gu, '')))
    .filter(Boolean)
    .join(' ');
  const body = text.includes(':') ? text.slice(text.indexOf(':') + 1).trim() : text;
  const description = capitalize(body).replace(/[.!?]*$/, '.');
  const counts = new Map<string, number>();
  for (const word of significantWords(text)) counts.set(word, (counts.get(word) ?? 0) + 1);
  const keywords = [...counts.entries()]
    .sort((a, b) => b[1] - a[1])
    .slice(0, 6)
    .map(([word]) => word);
  return {
    name: name.slice(0, 80) || 'Untitled',
    description: description.slice(0, 500),
    keywords,
  };
}
