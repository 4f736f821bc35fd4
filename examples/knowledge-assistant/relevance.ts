import { type Domain, significantWords } from './domains.js';

/** How relevant a text is to one domain, and what in the text says so. */
export interface Relevance {
  domain_id: string;
  domain_name: string;
  /** 0 to 1: the share of the domain's terms the text mentions. */
  relevance: number;
  /** The domain's terms the text mentions. */
  grounding: string[];
  relevant: boolean;
}

/** A fact found in a text for one domain; `fact_id` is what a person picks it by. */
export interface Fact {
  fact_id: string;
  domain_id: string;
  domain_name: string;
  fact: string;
}

/** The terms a domain is recognised by: its keywords, else the words of its name. */
function termsOf(domain: Domain): string[] {
  const terms = domain.keywords.length > 0 ? domain.keywords : significantWords(domain.name);
  return [...new Set(terms.map((t) => t.toLowerCase().trim()).filter(Boolean))];
}

function mentions(words: Set<string>, lower: string, term: string): boolean {
  return term.includes(' ') ? lower.includes(term) : words.has(term);
}

/**
 * Scores `text` against each domain: the share of the domain's terms it mentions.
 * A domain is relevant at `threshold` or above.
 */
export function scoreRelevance(text: string, domains: Domain[], threshold: number): Relevance[] {
  const lower = text.toLowerCase();
  const words = new Set(significantWords(text));
  return domains.map((domain) => {
    const terms = termsOf(domain);
    const grounding = terms.filter((term) => mentions(words, lower, term));
    const relevance =
      terms.length === 0 ? 0 : Math.round((grounding.length / terms.length) * 100) / 100;
    return {
      domain_id: domain.domain_id,
      domain_name: domain.name,
      relevance,
      grounding,
      relevant: relevance >= threshold && grounding.length > 0,
    };
  });
}

/** The most facts offered for one domain, and the longest fact. */
export const MAX_FACTS_PER_DOMAIN = 5;
export const MAX_FACT_CHARS = 300;

/**
 * Adds a domain's facts to `facts`, at most five and each cut to 300 characters,
 * numbered on from the facts already there (`f1`, `f2`, … across domains).
 */
export function addFacts(facts: Fact[], domain: Domain, found: string[]): void {
  for (const fact of found.slice(0, MAX_FACTS_PER_DOMAIN)) {
    facts.push({
      fact_id: `f${facts.length + 1}`,
      domain_id: domain.domain_id,
      domain_name: domain.name,
      fact: fact.slice(0, MAX_FACT_CHARS),
    });
  }
}

/**
 * The sentences of `text` that mention a term of each domain, at most five per
 * domain, numbered `f1`, `f2`, … across domains.
 */
export function extractFacts(text: string, domains: Domain[]): Fact[] {
  const sentences = text
    .split(/(?<=[.!?])\s+|\n+/)
    .map((s) => s.trim())
    .filter((s) => s.length >= 20);
  const facts: Fact[] = [];
  for (const domain of domains) {
    const terms = termsOf(domain);
    const found = sentences.filter((sentence) => {
      const lower = sentence.toLowerCase();
      const words = new Set(significantWords(sentence));
      return terms.some((term) => mentions(words, lower, term));
    });
    addFacts(facts, domain, found);
  }
  return facts;
}
