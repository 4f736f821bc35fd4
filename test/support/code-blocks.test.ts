import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { codeBlocks, isRegionOf, promisedOutputs, unkeptPromise } from './code-blocks.js';

describe('code blocks of a document', () => {
  it('reads each fence, indented ones included, with the check named right before it', () => {
    const dir = mkdtempSync(join(tmpdir(), 'code-blocks-'));
    const doc = join(dir, 'doc.md');
    writeFileSync(
      doc,
      [
        'Text',
        '<!-- checked: runs -->',
        '```sh',
        'echo hi',
        '```',
        '',
        '- a list item:',
        '',
        '  ```ts',
        '  const a = 1;',
        '  ```',
      ].join('\n'),
    );
    try {
      expect(codeBlocks(doc, 'doc.md')).toEqual([
        { doc: 'doc.md', line: 3, lang: 'sh', text: 'echo hi', check: 'runs' },
        { doc: 'doc.md', line: 9, lang: 'ts', text: 'const a = 1;', check: undefined },
      ]);
    } finally {
      rmSync(dir, { recursive: true });
    }
  });

  it('finds a block in a file only as whole lines, whatever their shared indentation', () => {
    const source = 'const tool = {\n  execute: () => {\n    return 1;\n  },\n};\n';
    expect(isRegionOf('execute: () => {\n  return 1;\n},', source)).toBe(true);
    expect(isRegionOf('execute: () => {\n  return 2;\n},', source)).toBe(false);
    expect(isRegionOf('execute: () => {\nreturn 1;\n},', source)).toBe(false);
  });

  it('holds a program to the outputs its → comments promise, in order', () => {
    const shell = '# → {"status":"pending",\n#    "id":"…"}\nrun # not a promise\n';
    expect(promisedOutputs(shell)).toEqual(['{"status":"pending","id":"…"}']);
    const code = 'console.log(a); // → first\nconsole.log(b); // → second …\n';
    expect(promisedOutputs(code)).toEqual(['first', 'second …']);
    expect(unkeptPromise('first\nsecond thing\n', ['first', 'second …'])).toBeUndefined();
    expect(unkeptPromise('second thing\nfirst\n', ['first', 'second …'])).toBe('second …');
    expect(unkeptPromise('{"status":"completed"}', ['{"status":"pending"…}'])).toBe(
      '{"status":"pending"…}',
    );
  });
});
