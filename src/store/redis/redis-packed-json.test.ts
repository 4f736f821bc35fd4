import { describe, expect, it } from 'vitest';
import { packJson, unpackJson } from './redis-packed-json.js';

const UUID = '7d778d28-af94-48c9-b2fe-6c2d914e1889';
const HASH = `sha256:${'2c'.repeat(32)}`;

describe('packed JSON', () => {
  it('packs ids and hashes, keys too, and gives back the same text', () => {
    const value = {
      id: `adk-${UUID}`,
      bare: UUID,
      hash: HASH,
      list: [`inv-${UUID}`, HASH],
      [`adk-${UUID}`]: { nested: `pause-${UUID}` },
    };
    const json = JSON.stringify(value);
    const packed = packJson(json);
    expect(packed.length).toBeLessThan(json.length - 80);
    expect(packed).not.toContain(UUID);
    expect(unpackJson(packed)).toBe(json);
  });

  it('gives back strings that look packed, and ids inside other strings, as they were', () => {
    const strings = [
      '~',
      '~~',
      '~#',
      `~#${'A'.repeat(43)}`,
      `~adk-${'B'.repeat(22)}`,
      `~${'C'.repeat(22)}`,
      `say "adk-${UUID}"`,
      `a","b":"adk-${UUID}`,
      `x-y-${UUID}`,
      `ADK-${UUID.toUpperCase()}`,
      `${HASH}0`,
      'sha256:short',
    ];
    const json = JSON.stringify({ strings, [strings[4] as string]: strings });
    expect(unpackJson(packJson(json))).toBe(json);
  });
});
