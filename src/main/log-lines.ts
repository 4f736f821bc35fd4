import { styleText } from 'node:util';
import type { DestinationStream } from 'pino';

/** pino's numeric levels, as a line shows them. */
const LEVELS: Record<number, string> = {
  10: 'TRACE',
  20: 'DEBUG',
  30: 'INFO',
  40: 'WARN',
  50: 'ERROR',
  60: 'FATAL',
};

/** Fields every line has, shown in its own place or not at all. */
const SHOWN_APART = new Set(['time', 'level', 'msg', 'pid', 'hostname', 'service']);

/** A field's value as `key=value` shows it: text as it is unless it has spaces, else JSON. */
function shown(value: unknown): string {
  if (typeof value === 'string') return /^[^\s"=]+$/.test(value) ? value : JSON.stringify(value);
  return JSON.stringify(value) ?? String(value);
}

/**
 * One of pino's JSON lines as a person reads it: `12:00:01 INFO  Holdpoint listening on
 * http://127.0.0.1:3000 port=3000 …`, its fields after the message; an error's stack on
 * the lines below. A line that is not pino's JSON is passed on as it is.
 */
export function readableLine(json: string, colors = false): string {
  let entry: Record<string, unknown>;
  try {
    entry = JSON.parse(json) as Record<string, unknown>;
  } catch {
    return json.endsWith('\n') ? json : `${json}\n`;
  }
  const time = new Date(Number(entry.time)).toISOString().slice(11, 19);
  const level = LEVELS[Number(entry.level)] ?? String(entry.level);
  const paint = (format: Parameters<typeof styleText>[0], text: string) =>
    colors ? styleText(format, text) : text;
  const levelColor =
    Number(entry.level) >= 50 ? 'red' : Number(entry.level) >= 40 ? 'yellow' : 'green';
  const { err, ...rest } = entry;
  const fields = Object.entries(rest)
    .filter(([key]) => !SHOWN_APART.has(key))
    .map(([key, value]) => `${key}=${shown(value)}`);
  const stack = (err as { stack?: unknown } | undefined)?.stack;
  return `${[
    paint('dim', time),
    paint(levelColor, level.padEnd(5)),
    String(entry.msg ?? ''),
    ...(fields.length > 0 ? [paint('dim', fields.join(' '))] : []),
  ].join(' ')}\n${typeof stack === 'string' ? `${paint('dim', stack)}\n` : ''}`;
}

/** A pino destination writing readable lines to `out` (colored on a terminal). */
export function readableLines(out: NodeJS.WriteStream): DestinationStream {
  return { write: (json: string) => void out.write(readableLine(json, out.isTTY === true)) };
}
