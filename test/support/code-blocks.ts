import { readFileSync } from 'node:fs';

/**
 * A fenced code block of a Markdown document, with how the HTML comment right before
 * it says it is checked (`<!-- checked: runs -->`, `same-as <file>`, `json`,
 * `illustrative: <why>`), or undefined when nothing says so.
 */
export interface CodeBlock {
  doc: string;
  line: number;
  lang: string;
  text: string;
  check: string | undefined;
}

const FENCE = /^(\s*)(`{3,})(\S*)\s*$/;
const CHECKED = /^\s*<!-- checked: (.+?) -->\s*$/;

/** Every fenced block of the Markdown file at `path` (named `doc`), indented ones included. */
export function codeBlocks(path: string, doc: string): CodeBlock[] {
  const lines = readFileSync(path, 'utf8').split('\n');
  const blocks: CodeBlock[] = [];
  for (let index = 0; index < lines.length; index++) {
    const open = FENCE.exec(lines[index] ?? '');
    if (!open) continue;
    const [, indent = '', fence = '', lang = ''] = open;
    let end = index + 1;
    while (end < lines.length && lines[end]?.trim() !== fence) end++;
    let before = index - 1;
    while (before >= 0 && lines[before]?.trim() === '') before--;
    blocks.push({
      doc,
      line: index + 1,
      lang,
      text: lines
        .slice(index + 1, end)
        .map((line) => (line.startsWith(indent) ? line.slice(indent.length) : line.trimStart()))
        .join('\n'),
      check: CHECKED.exec(lines[before] ?? '')?.[1],
    });
    index = end;
  }
  return blocks;
}

/** `lines` without the indentation they all share (blank lines become empty). */
function dedent(lines: string[]): string {
  const widths = lines
    .filter((line) => line.trim() !== '')
    .map((line) => line.length - line.trimStart().length);
  const width = Math.min(...widths);
  return lines.map((line) => (line.trim() === '' ? '' : line.slice(width))).join('\n');
}

/** Whether `text` is, up to a shared indentation, a run of whole lines of `source`. */
export function isRegionOf(text: string, source: string): boolean {
  const wanted = text.split('\n');
  const want = dedent(wanted);
  const lines = source.split('\n');
  for (let start = 0; start + wanted.length <= lines.length; start++) {
    if (dedent(lines.slice(start, start + wanted.length)) === want) return true;
  }
  return false;
}

/**
 * The outputs a program promises in `→` comments, in order: `// → text` at the end of a
 * line, or a shell `# → text` line continued by `#   more` lines (joined as one).
 */
export function promisedOutputs(source: string): string[] {
  const promises: string[] = [];
  let shellPromise = false;
  for (const line of source.split('\n')) {
    const continued = /^#\s{3,}(\S.*)$/.exec(line)?.[1];
    if (shellPromise && continued) {
      promises.push(`${promises.pop() ?? ''}${continued}`);
      continue;
    }
    const promise = /(?:^#|\/\/) → (.*)$/.exec(line);
    shellPromise = Boolean(promise) && line.startsWith('#');
    if (promise?.[1]) promises.push(promise[1].trim());
  }
  return promises;
}

/**
 * Where each promise appears in `output`, in order (`…` stands for anything), or the
 * first promise that does not.
 */
export function unkeptPromise(output: string, promises: string[]): string | undefined {
  let from = 0;
  for (const promise of promises) {
    const pattern = promise
      .split('…')
      .map((piece) => piece.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
      .join('[\\s\\S]*?');
    const match = new RegExp(pattern).exec(output.slice(from));
    if (!match) return promise;
    from += match.index + match[0].length;
  }
  return undefined;
}
