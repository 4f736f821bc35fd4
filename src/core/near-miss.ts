/**
 * How many single-letter edits (insert, delete, change, or swap two neighbours) turn
 * `a` into `b`: the optimal string alignment distance.
 */
function editDistance(a: string, b: string): number {
  const rows = Array.from({ length: a.length + 1 }, (_, i) =>
    Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)),
  );
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      const row = rows[i] as number[];
      const above = rows[i - 1] as number[];
      let best = Math.min(
        (above[j] as number) + 1,
        (row[j - 1] as number) + 1,
        (above[j - 1] as number) + cost,
      );
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) {
        best = Math.min(best, ((rows[i - 2] as number[])[j - 2] as number) + 1);
      }
      row[j] = best;
    }
  }
  return (rows[a.length] as number[])[b.length] as number;
}

/**
 * The one of `names` that `given` most likely meant to be (a typo: `prot` for `port`),
 * or undefined when none is close: at most one edit for short names, two for longer.
 */
export function nearMiss(given: string, names: readonly string[]): string | undefined {
  const most = given.length <= 4 ? 1 : 2;
  let closest: { name: string; distance: number } | undefined;
  for (const name of names) {
    const distance = editDistance(given, name);
    if (distance <= most && (closest === undefined || distance < closest.distance)) {
      closest = { name, distance };
    }
  }
  return closest?.name;
}
