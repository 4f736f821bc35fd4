import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { z } from 'zod';
import type { ApprovalEvent } from '../../core/approval-event.js';
import { type Clock, systemClock } from '../../core/clock.js';
import { HoldpointError } from '../../core/errors.js';
import type { Principal } from '../../core/principal.js';
import { idText } from '../../core/validate.js';
import type { LinkedApproval, MessageLinks } from './channel.js';

/**
 * The longest token `verify` reads: ids are at most 200 characters each, so a real
 * token stays far below it; anything longer is refused before it is decoded.
 */
export const MAX_TOKEN_CHARS = 1200;

/** What a decision link's token says, signed: one approval, one approver, one argument hash. */
export const linkClaims = z.strictObject({
  v: z.literal(1),
  /** The approval's id. */
  a: idText,
  /** The principal id of the one approver the link is for. */
  p: idText,
  /** The approval's arguments hash (`sha256:…`): a decision through the link is bound to it. */
  h: z.string().min(1).max(100),
  /** Until when (ms since the epoch) the link works. */
  e: z.number().int().positive(),
  /** Random: names the link, so its decision is recognised (`link:<n>`) and it is used once. */
  n: z.string().regex(/^[A-Za-z0-9_-]{16,64}$/),
});

export type LinkClaims = z.output<typeof linkClaims>;

/** Why a token is refused: not a token at all, not signed with our secret, or past its time. */
export type LinkRefusal = 'malformed' | 'bad_signature' | 'expired';

/** A token's claims, or why it is refused (with the claims when it only expired). */
export type LinkVerification =
  | { ok: true; claims: LinkClaims }
  | { ok: false; reason: LinkRefusal; claims?: LinkClaims };

/** Signs and checks decision links; implements what channels need (`MessageLinks`). */
export interface DecisionLinks extends MessageLinks {
  /** The token's claims if it is ours, intact and not past its time. */
  verify(token: string): LinkVerification;
  /** A token for `claims` (the nonce and expiry as given): tests and `decisionLink` use it. */
  sign(claims: LinkClaims): string;
  /** The request id a decision through the link `claims` describe carries: its single use. */
  requestIdOf(claims: LinkClaims): string;
  /**
   * Who decides through the link `claims` describe: its approver, with the roles the
   * directory gives them (`rolesOf`). The link proves the person (their mailbox), not
   * their roles; the decision is then checked against the tool's policy like any other.
   */
  principalOf(claims: LinkClaims): Principal;
}

/** How decision links are made: the server's public address, the HMAC key, the longest life. */
export interface DecisionLinksOptions {
  /** The server's address as people reach it (`https://holdpoint.example.com`). */
  baseUrl: string;
  /** HMAC-SHA256 key; at least 32 characters. */
  secret: string;
  /** The longest a link works; never past its approval's expiry. Default 24 hours. */
  ttlSeconds?: number;
  /** The roles a link's approver acts with (the directory's `members`). Default none. */
  rolesOf?: (principalId: string) => readonly string[];
  clock?: Clock;
}

const TOKEN_SHAPE = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/;
const DEFAULT_TTL_SECONDS = 24 * 3600;
const MIN_SECRET_CHARS = 32;

/**
 * Signed, single-use decision links: `${baseUrl}/decide/<token>`, where the token is
 * base64url(JSON claims) + '.' + base64url(HMAC-SHA256(secret, the first part)). The
 * claims bind the link to one approval, one approver, the arguments hash they will see
 * and an expiry (the earlier of now + ttl and the approval's own); the nonce makes each
 * link's decision recognisable, so a second use is refused.
 */
export function decisionLinks({
  baseUrl,
  secret,
  ttlSeconds = DEFAULT_TTL_SECONDS,
  rolesOf = () => [],
  clock = systemClock,
}: DecisionLinksOptions): DecisionLinks {
  if (secret.length < MIN_SECRET_CHARS) {
    throw new HoldpointError(
      'VALIDATION_FAILED',
      `The decision link secret must have at least ${MIN_SECRET_CHARS} characters.`,
    );
  }
  const base = baseUrl.replace(/\/+$/, '');
  const mac = (payload: string) => createHmac('sha256', secret).update(payload).digest();

  const sign = (claims: LinkClaims) => {
    const payload = Buffer.from(JSON.stringify(claims)).toString('base64url');
    return `${payload}.${mac(payload).toString('base64url')}`;
  };

  const verify = (token: string): LinkVerification => {
    if (token.length > MAX_TOKEN_CHARS || !TOKEN_SHAPE.test(token)) {
      return { ok: false, reason: 'malformed' };
    }
    const [payload = '', signature = ''] = token.split('.');
    const given = Buffer.from(signature, 'base64url');
    const expected = mac(payload);
    // Nothing of the payload is read before its signature holds; a signature is read in
    // its one encoding only (base64url leaves spare bits a forger could flip).
    const canonical = given.toString('base64url') === signature;
    if (!canonical || given.length !== expected.length || !timingSafeEqual(given, expected)) {
      return { ok: false, reason: 'bad_signature' };
    }
    let json: unknown;
    try {
      json = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
    } catch {
      return { ok: false, reason: 'malformed' };
    }
    const parsed = linkClaims.safeParse(json);
    if (!parsed.success) return { ok: false, reason: 'malformed' };
    if (parsed.data.e <= clock.now()) return { ok: false, reason: 'expired', claims: parsed.data };
    return { ok: true, claims: parsed.data };
  };

  return {
    sign,
    verify,
    requestIdOf: (claims) => `link:${claims.n}`,
    principalOf: (claims) => ({ id: claims.p, roles: [...rolesOf(claims.p)] }),
    decisionLink(event: ApprovalEvent, approver: string) {
      const { approval } = event;
      return this.decisionLinkTo(
        {
          approvalId: approval.approval_id,
          argsHash: approval.args_hash,
          expiresAt: Date.parse(approval.expires_at),
        },
        approver,
      );
    },
    decisionLinkTo({ approvalId, argsHash, expiresAt }: LinkedApproval, approver: string) {
      const now = clock.now();
      const expiry = Math.min(now + ttlSeconds * 1000, expiresAt);
      if (!(expiry > now)) return undefined;
      const token = sign({
        v: 1,
        a: approvalId,
        p: approver,
        h: argsHash,
        e: expiry,
        n: randomBytes(16).toString('base64url'),
      });
      return `${base}/decide/${token}`;
    },
    approvalUrl: () => `${base}/approvals`,
  };
}
