/**
 * A plain-text table: the columns at `textColumns` (the first, unless told) are text,
 * left-aligned; the rest numbers, right-aligned.
 */
export function table(header: string[], rows: string[][], textColumns: number[] = [0]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: string[]) =>
    cells.map((c, i) =>
      textColumns.includes(i) ? c.padEnd(widths[i] ?? 0) : c.padStart(widths[i] ?? 0),
    );
  const rule = widths.map((w) => '-'.repeat(w));
  return [line(header), rule, ...rows.map(line)]
    .map((cells) => cells.join('  ').trimEnd())
    .join('\n');
}

/** Milliseconds, to the microsecond. */
export const ms = (value: number) => value.toFixed(3);

/** A ratio, e.g. `1.25×`. */
export const times = (value: number) => `${value.toFixed(2)}×`;
