import { describe, expect, it } from 'vitest';
import { packId, unpackId } from './redis-packed-ids.js';

const UUID = '7d778d28-af94-48c9-b2fe-6c2d914e1889';

describe('packed ids', () => {
  it('packs ids with a UUID and SHA-256 hashes, and gives back the same strings', () => {
    for (const id of [
      `adk-${UUID}`,
      `inv-${UUID}`,
      `pause-${UUID}`,
      UUID,
      `sha256:${'2c'.repeat(32)}`,
    ]) {
      const packed = packId(id) as string;
      expect(packed.length).toBeLessThan(id.length - 12);
      expect(unpackId(packed)).toBe(id);
    }
  });

  it('gives back strings that look packed, and anything that is not an id, as they were', () => {
    for (const value of [
      '~',
      '~~',
      '~#',
      `~#${'A'.repeat(43)}`,
      `~adk-${'B'.repeat(22)}`,
      `~${'C'.repeat(22)}`,
      `x-y-${UUID}`,
      `ADK-${UUID.toUpperCase()}`,
      `sha256:${'2c'.repeat(32)}0`,
      '',
      42,
      null,
    ]) {
      expect(unpackId(packId(value))).toBe(value);
    }
  });
});
