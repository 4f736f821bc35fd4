import { createHoldpoint, type Holdpoint } from 'holdpoint';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import approvalTools from './support/approval-tools-app.js';

// The in-process API's out-of-office delegations act for the person it is handed, as
// Holdpoint itself (SYSTEM): nothing in the request names anyone else.
let holdpoint: Holdpoint;

beforeAll(() => {
  holdpoint = createHoldpoint({ apps: [approvalTools], sweepIntervalSeconds: false });
});
afterAll(async () => {
  await holdpoint.close();
});

describe('holdpoint.delegations.set', () => {
  it("refuses a request naming a person beside the one it is for, and sets nobody's delegation", async () => {
    const until = Date.now() + 3_600_000;
    // A JavaScript caller (no types) puts another person's id into the request.
    const request = { userId: 'bob', delegate: 'dave', until } as Parameters<
      Holdpoint['delegations']['set']
    >[1];
    await expect(holdpoint.delegations.set('ann', request)).rejects.toMatchObject({
      code: 'VALIDATION_FAILED',
    });
    expect(await holdpoint.delegations.get('bob')).toBeUndefined();
    expect(await holdpoint.delegations.get('ann')).toBeUndefined();
    // As the types say, it is ann's.
    await holdpoint.delegations.set('ann', { delegate: 'dave', until });
    expect(await holdpoint.delegations.get('ann')).toMatchObject({ delegate: 'dave', until });
  });
});
