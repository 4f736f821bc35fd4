import { describe, expect, it } from 'vitest';
import { returnPath } from './return-path.js';

describe('returnPath', () => {
  it('keeps a path of this site, query and fragment included; / when none is given', () => {
    expect(returnPath(undefined)).toBe('/');
    expect(returnPath('')).toBe('/');
    expect(returnPath('/approvals')).toBe('/approvals');
    expect(returnPath('/?app=payments&session=s-1#top')).toBe('/?app=payments&session=s-1#top');
    expect(returnPath('/a/../approvals')).toBe('/approvals');
  });

  it('refuses anything that could leave the site', () => {
    for (const text of [
      'https://evil.example/',
      '//evil.example/path',
      '/\\evil.example',
      '\\\\evil.example',
      'approvals',
      'javascript:alert(1)',
      '/\tevil',
      '/\r\nset-cookie: x',
      `/${'a'.repeat(2000)}`,
    ]) {
      expect(() => returnPath(text), JSON.stringify(text)).toThrow(
        expect.objectContaining({ code: 'VALIDATION_FAILED' }),
      );
    }
  });
});
