import type { BaseLlm } from '@google/adk';
import { z } from 'zod';
import { askModel } from './ask-model.js';
import type { Domain, DomainDraft } from './domains.js';
import { addFacts, type Fact, MAX_FACTS_PER_DOMAIN, type Relevance } from './relevance.js';

/**
 * Seed 003's three model tasks (prettify a draft, rate a text's relevance to a domain,
 * extract a domain's facts from a text), asked of a real model. Answers are checked and
 * trimmed to the limits the tools promise; the rules model uses the deterministic
 * versions in domains.ts and relevance.ts instead.
 */

const PRETTIFY = `You turn a user's rough description of a knowledge domain into a short
title-like name (at most 6 words), a clear one- or two-sentence description, and up to
8 lower-case keywords someone would search the domain by. Keep the user's meaning and
language. Answer JSON only.`;

const RELEVANCE = `You decide how relevant a text is to one knowledge domain (its name,
description and keywords). relevance_level is 0 (unrelated) to 1 (squarely about the
domain); relevance_grounding lists the short phrases of the text that make it relevant
(empty when it is not). Answer JSON only.`;

const FACTS = `You extract facts relevant to one knowledge domain from a text: short,
self-contained statements the text makes, worth keeping in a knowledge base for that
domain. relevance_grounding says what made the text relevant to the domain. Quote or closely paraphrase the text; invent nothing. At most ${MAX_FACTS_PER_DOMAIN}
facts; none when the text has none. Answer JSON only.`;

const draftAnswer = z.object({
  name: z.string().trim().min(1),
  description: z.string().trim().min(1),
  keywords: z.array(z.string()),
});

const relevanceAnswer = z.object({
  relevance_level: z.number(),
  relevance_grounding: z.array(z.string()),
});

const factsAnswer = z.object({ facts: z.array(z.object({ fact: z.string() })) });

/** What a model is told about a domain. */
function domainInput(domain: Domain) {
  return {
    domain_name: domain.name,
    domain_description: domain.description,
    domain_keywords: domain.keywords,
  };
}

/** A domain draft prettified by `model`, trimmed to what a domain may hold. */
export async function prettifyWithModel(
  model: BaseLlm,
  draft: string,
  signal?: AbortSignal,
): Promise<DomainDraft> {
  const answer = await askModel(
    model,
    { instruction: PRETTIFY, input: { domain_draft: draft }, answer: draftAnswer },
    signal,
  );
  const keywords = answer.keywords.map((k) => k.trim().toLowerCase().slice(0, 60)).filter(Boolean);
  return {
    name: answer.name.slice(0, 80),
    description: answer.description.slice(0, 500),
    keywords: [...new Set(keywords)].slice(0, 12),
  };
}

/**
 * `text`'s relevance to each domain, one question to `model` per domain (as the seed's
 * loop does); a domain is relevant at `threshold` or above.
 */
export async function relevanceWithModel(
  model: BaseLlm,
  text: string,
  domains: Domain[],
  threshold: number,
  signal?: AbortSignal,
): Promise<Relevance[]> {
  const scored: Relevance[] = [];
  for (const domain of domains) {
    const answer = await askModel(
      model,
      {
        instruction: RELEVANCE,
        input: { parsed_text: text, ...domainInput(domain) },
        answer: relevanceAnswer,
      },
      signal,
    );
    const relevance = Math.min(1, Math.max(0, Math.round(answer.relevance_level * 100) / 100));
    scored.push({
      domain_id: domain.domain_id,
      domain_name: domain.name,
      relevance,
      grounding: answer.relevance_grounding.map((g) => g.slice(0, 200)).slice(0, 10),
      relevant: relevance >= threshold,
    });
  }
  return scored;
}

/**
 * The facts `model` extracts from `text` for each domain, told what made the text
 * relevant to it; numbered `f1`, `f2`, … across domains.
 */
export async function factsWithModel(
  model: BaseLlm,
  text: string,
  domains: { domain: Domain; grounding: string[] }[],
  signal?: AbortSignal,
): Promise<Fact[]> {
  const facts: Fact[] = [];
  for (const { domain, grounding } of domains) {
    const answer = await askModel(
      model,
      {
        instruction: FACTS,
        input: { parsed_text: text, ...domainInput(domain), relevance_grounding: grounding },
        answer: factsAnswer,
      },
      signal,
    );
    const found = answer.facts.map((f) => f.fact.trim()).filter(Boolean);
    addFacts(facts, domain, found);
  }
  return facts;
}
