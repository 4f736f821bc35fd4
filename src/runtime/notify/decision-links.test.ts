import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { ApprovalEvent } from '../../core/approval-event.js';
import { ManualClock } from '../../core/manual-clock.test-support.js';
import { decisionLinks, type LinkClaims, MAX_TOKEN_CHARS } from './decision-links.js';

const SECRET = 'a-decision-link-secret-of-32-chars!';
const clock = new ManualClock();
const links = decisionLinks({
  baseUrl: 'https://hp.example.com/',
  secret: SECRET,
  ttlSeconds: 600,
  clock,
});

/** The event parts a link is made from: the approval's id, arguments hash and expiry. */
function eventFor(expiresAt: number): ApprovalEvent {
  return {
    approval: {
      approval_id: 'apr-1',
      args_hash: 'sha256:abc',
      expires_at: new Date(expiresAt).toISOString(),
    },
  } as ApprovalEvent;
}

const tokenOf = (url: string) => url.split('/decide/')[1] ?? '';

describe('decisionLinks', () => {
  it('signs a link for one approval, approver and hash, expiring at the earlier of ttl and the approval', () => {
    const late = eventFor(clock.now() + 3_600_000);
    const url = links.decisionLink(late, 'alice') ?? '';
    expect(url).toMatch(/^https:\/\/hp\.example\.com\/decide\/[\w-]+\.[\w-]+$/);
    const verified = links.verify(tokenOf(url));
    expect(verified).toEqual({
      ok: true,
      claims: {
        v: 1,
        a: 'apr-1',
        p: 'alice',
        h: 'sha256:abc',
        e: clock.now() + 600_000,
        n: expect.stringMatching(/^[\w-]{16,}$/),
      },
    });
    const soon = eventFor(clock.now() + 60_000);
    const early = links.verify(tokenOf(links.decisionLink(soon, 'alice') ?? ''));
    expect(early.ok && early.claims.e).toBe(clock.now() + 60_000);
    // Two links for the same approver are two links: each has its own nonce.
    const again = links.verify(tokenOf(links.decisionLink(late, 'alice') ?? ''));
    expect(again.ok && verified.ok && again.claims.n !== verified.claims.n).toBe(true);
    expect(links.decisionLink(eventFor(clock.now()), 'alice')).toBeUndefined();
    expect(links.approvalUrl('apr-1')).toBe('https://hp.example.com/approvals');
  });

  it('refuses expired links by the clock, saying which they were', () => {
    const local = new ManualClock();
    const timed = decisionLinks({
      baseUrl: 'http://x',
      secret: SECRET,
      ttlSeconds: 60,
      clock: local,
    });
    const token = tokenOf(timed.decisionLink(eventFor(local.now() + 3_600_000), 'bob') ?? '');
    local.advance(59_999);
    expect(timed.verify(token).ok).toBe(true);
    local.advance(1);
    expect(timed.verify(token)).toMatchObject({
      ok: false,
      reason: 'expired',
      claims: { p: 'bob' },
    });
  });

  it('refuses forged, tampered, foreign and oversized tokens', () => {
    const token = tokenOf(links.decisionLink(eventFor(clock.now() + 3_600_000), 'alice') ?? '');
    const [payload = '', signature = ''] = token.split('.');
    const claims = JSON.parse(Buffer.from(payload, 'base64url').toString()) as LinkClaims;

    // Another approver named in the payload, the signature kept.
    const tampered = Buffer.from(JSON.stringify({ ...claims, p: 'mallory' })).toString('base64url');
    expect(links.verify(`${tampered}.${signature}`)).toEqual({
      ok: false,
      reason: 'bad_signature',
    });
    // Signed with another secret.
    const foreign = decisionLinks({ baseUrl: 'http://x', secret: `${SECRET}-other`, clock });
    expect(links.verify(foreign.sign(claims))).toEqual({ ok: false, reason: 'bad_signature' });
    // A made-up signature, and the real one altered.
    const forged = `${payload}.${Buffer.alloc(32, 7).toString('base64url')}`;
    expect(links.verify(forged)).toEqual({ ok: false, reason: 'bad_signature' });
    const flipped = `${signature.slice(0, -1)}${signature.endsWith('A') ? 'B' : 'A'}`;
    expect(links.verify(`${payload}.${flipped}`)).toEqual({ ok: false, reason: 'bad_signature' });
    expect(links.verify(`${payload}.${signature.slice(0, -2)}`)).toEqual({
      ok: false,
      reason: 'bad_signature',
    });

    // Signed by us but not claims: refused as malformed, after the signature held.
    const notClaims = Buffer.from(JSON.stringify({ ...claims, v: 2 })).toString('base64url');
    const mac = createHmac('sha256', SECRET).update(notClaims).digest('base64url');
    expect(links.verify(`${notClaims}.${mac}`)).toEqual({ ok: false, reason: 'malformed' });

    for (const malformed of ['', 'abc', 'a.b.c', `${payload}.`, `${payload}.${signature}=`]) {
      expect(links.verify(malformed), malformed).toEqual({ ok: false, reason: 'malformed' });
    }
    const oversized = `${'A'.repeat(MAX_TOKEN_CHARS)}.${signature}`;
    expect(links.verify(oversized)).toEqual({ ok: false, reason: 'malformed' });
    expect(links.verify(token).ok).toBe(true);
  });

  it('refuses a secret shorter than 32 characters', () => {
    expect(() => decisionLinks({ baseUrl: 'http://x', secret: 'short' })).toThrow(/32/);
  });
});
