import { describe, expect, it } from 'vitest';
import { prometheusTextProblems } from './prometheus-text.test-support.js';

describe('prometheusTextProblems', () => {
  it('passes the text format and names what breaks it', () => {
    const good = [
      '# HELP up Whether it is up',
      '# TYPE up gauge',
      'up{app="a",tool="b"} 1',
      '# TYPE d_seconds histogram',
      'd_seconds_bucket{le="+Inf"} 2',
      'd_seconds_sum 3.5',
      'd_seconds_count 2',
      '',
    ].join('\n');
    expect(prometheusTextProblems(good)).toEqual([]);
    expect(prometheusTextProblems(`# UNIT d_seconds s\n${good}`)).toEqual([
      'line 1: # UNIT d_seconds s (OpenMetrics, not the text format)',
    ]);
    expect(prometheusTextProblems('other 1')).toEqual(['line 1: other 1 (no # TYPE before it)']);
    expect(prometheusTextProblems('# a comment\n# TYPE up gauge\nup 1')).toEqual([]);
    expect(prometheusTextProblems('up{le=1} 1')).toEqual([
      'line 1: up{le=1} 1 (not a sample, # HELP or # TYPE)',
    ]);
    expect(prometheusTextProblems('# TYPE up gauge\n# TYPE up gauge')).toEqual([
      'line 2: # TYPE up gauge (typed twice)',
    ]);
  });
});
