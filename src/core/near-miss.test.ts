import { describe, expect, it } from 'vitest';
import { nearMiss } from './near-miss.js';

describe('nearMiss', () => {
  const flags = ['port', 'host', 'store', 'pause-ttl', 'postgres-url', 'redis-url'];

  it('finds the name a typo meant: a swap, a letter more, less or changed', () => {
    expect(nearMiss('prot', flags)).toBe('port');
    expect(nearMiss('ports', flags)).toBe('port');
    expect(nearMiss('stor', flags)).toBe('store');
    expect(nearMiss('pause-tll', flags)).toBe('pause-ttl');
    expect(nearMiss('postgre-url', flags)).toBe('postgres-url');
  });

  it('finds none when nothing is close', () => {
    expect(nearMiss('bogus', flags)).toBeUndefined();
    expect(nearMiss('frobnicate', ['serve', 'chat', 'api'])).toBeUndefined();
    expect(nearMiss('pt', flags)).toBeUndefined();
  });
});
