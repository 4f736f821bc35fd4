import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

// docs/grafana-dashboard.json charts what /metrics serves: every series it queries is
// one docs/library.md's metrics table lists (test/metrics.test.ts scrapes those).

const read = (path: string) => readFileSync(new URL(`../${path}`, import.meta.url), 'utf8');

describe('docs/grafana-dashboard.json', () => {
  const dashboard = JSON.parse(read('docs/grafana-dashboard.json')) as {
    panels: { title: string; targets: { expr: string }[] }[];
  };

  it('queries only the series Holdpoint serves, and charts each kind of them', () => {
    const documented = read('docs/library.md');
    const queried = dashboard.panels.flatMap((panel) =>
      panel.targets.flatMap((target) =>
        [...target.expr.matchAll(/holdpoint_[a-z_]+/g)].map((m) => m[0]),
      ),
    );
    const families = (name: string) => name.replace(/_(bucket|sum|count)$/, '');
    const unknown = queried.filter((name) => !documented.includes(`\`${families(name)}`));
    expect(unknown).toEqual([]);
    for (const family of [
      'holdpoint_approvals_waiting',
      'holdpoint_approval_decision_duration_seconds',
      'holdpoint_run_events_total',
      'holdpoint_http_request_duration_seconds',
      'holdpoint_store_round_trip_duration_seconds',
      'holdpoint_notifications_deliveries_total',
    ]) {
      expect(queried.map(families), family).toContain(family);
    }
  });
});
