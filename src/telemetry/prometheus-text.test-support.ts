/** One sample of a Prometheus text exposition: its name, labels and value. */
export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/** Test support: the samples of a Prometheus text exposition (comments skipped). */
export function parseSamples(text: string): Sample[] {
  const samples: Sample[] = [];
  for (const line of text.split('\n')) {
    const match = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!match) continue;
    const labels: Record<string, string> = {};
    for (const [, key, value] of (match[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)) {
      labels[key as string] = value as string;
    }
    samples.push({ name: match[1] as string, labels, value: Number(match[3]) });
  }
  return samples;
}

/**
 * Test support: reads `text` by sample name and labels (those given must match; others
 * may be there too); undefined when no sample matches.
 */
export function samplesOf(text: string) {
  const samples = parseSamples(text);
  return (name: string, labels: Record<string, string> = {}): number | undefined =>
    samples.find(
      (s) =>
        s.name === name && Object.entries(labels).every(([key, value]) => s.labels[key] === value),
    )?.value;
}

const NAME = '[a-zA-Z_:][a-zA-Z0-9_:]*';
const LABEL = '[a-zA-Z_][a-zA-Z0-9_]*="(?:[^"\\\\\\n]|\\\\["\\\\n])*"';
const VALUE = '(?:[+-]?(?:\\d+(?:\\.\\d*)?|\\.\\d+)(?:[eE][+-]?\\d+)?|NaN|[+-]Inf)';
const SAMPLE = new RegExp(
  `^(${NAME})(?:\\{(?:${LABEL}(?:,${LABEL})*,?)?\\})? ${VALUE}(?: -?\\d+)?$`,
);
const HELP = new RegExp(`^# HELP (${NAME}) .*$`);
const TYPE = new RegExp(`^# TYPE (${NAME}) (counter|gauge|histogram|summary|untyped)$`);

/**
 * Test support: what in `text` breaks the Prometheus text format (version 0.0.4) a strict
 * parser reads: OpenMetrics' `# UNIT` or `# EOF`, a line that is no sample, comment,
 * `# HELP` or `# TYPE`, a sample of a family with no `# TYPE` before it, a family typed twice, a
 * histogram's sample that is not its `_bucket`, `_sum` or `_count`. Empty when it holds.
 */
export function prometheusTextProblems(text: string): string[] {
  const problems: string[] = [];
  const types = new Map<string, string>();
  for (const [index, line] of text.split('\n').entries()) {
    const where = `line ${index + 1}: ${line}`;
    if (/^# (UNIT|EOF)\b/.test(line)) {
      problems.push(`${where} (OpenMetrics, not the text format)`);
      continue;
    }
    // Any other comment is one (the format ignores it), as long as it is no broken HELP or TYPE.
    if (line === '' || HELP.test(line) || (/^#/.test(line) && !/^# (HELP|TYPE)\b/.test(line))) {
      continue;
    }
    const typed = TYPE.exec(line);
    if (typed) {
      const [, family = '', type = ''] = typed;
      if (types.has(family)) problems.push(`${where} (typed twice)`);
      types.set(family, type);
      continue;
    }
    const sample = SAMPLE.exec(line);
    if (!sample) {
      problems.push(`${where} (not a sample, # HELP or # TYPE)`);
      continue;
    }
    const name = sample[1] ?? '';
    const histogram = /^(.*)_(bucket|sum|count)$/.exec(name)?.[1];
    if (histogram !== undefined && types.get(histogram) === 'histogram') continue;
    const type = types.get(name);
    if (type === undefined) problems.push(`${where} (no # TYPE before it)`);
    else if (type === 'histogram')
      problems.push(`${where} (a histogram's sample is _bucket, _sum or _count)`);
  }
  return problems;
}
