import { mkdirSync, mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { buildWebUnlessCurrent, type WebBuild } from '../scripts/build-web.js';

// `npm run build` reuses what it built before: tsc's incremental state and the web step's
// stamp. The web step runs here on a project of the test's own with a stand-in for Vite:
// it writes web/dist and reports the modules it read, one of them outside web/.

const ROOT = fileURLToPath(new URL('..', import.meta.url));

let root: string;
let builds: number;

function write(path: string, text: string): void {
  mkdirSync(dirname(join(root, path)), { recursive: true });
  writeFileSync(join(root, path), text);
}

const standInBuild: WebBuild = async () => {
  builds += 1;
  write('web/dist/index.html', `<script src="assets/index-${builds}.js"></script>`);
  write(`web/dist/assets/index-${builds}.js`, 'render()');
  return [
    join(root, 'web/index.html'),
    join(root, 'web/src/main.tsx'),
    join(root, 'src/shared.ts?raw'),
    '\0vite/modulepreload-polyfill.js',
  ];
};

/** Runs the web step and resolves how many builds have run so far. */
async function build(): Promise<number> {
  await buildWebUnlessCurrent(root, standInBuild);
  return builds;
}

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'hp-build-web-'));
  builds = 0;
  write('package-lock.json', '{"lockfileVersion":3}');
  write('web/vite.config.ts', 'export default {};');
  write('web/index.html', '<script type="module" src="/src/main.tsx"></script>');
  write('web/src/main.tsx', 'render();');
  write('src/shared.ts', 'export const shared = 1;');
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

describe('the web build step', () => {
  it('builds once, then not again while nothing the build reads changed', async () => {
    expect(await build()).toBe(1);
    expect(await build()).toBe(1);
    // A checkout gives a file a new modification time, not new content.
    const later = new Date(Date.now() + 60_000);
    utimesSync(join(root, 'web/src/main.tsx'), later, later);
    expect(await build()).toBe(1);
  });

  it.each([
    ['a source under web/ changes', () => write('web/src/main.tsx', 'render(2);')],
    [
      'the Vite config changes',
      () => write('web/vite.config.ts', 'export default { base: "/ui/" };'),
    ],
    [
      'a module read from outside web/ changes',
      () => write('src/shared.ts', 'export const shared = 2;'),
    ],
    ['package-lock.json changes', () => write('package-lock.json', '{"lockfileVersion":4}')],
    ['a file appears under web/', () => write('web/public/robots.txt', 'User-agent: *')],
    ['a source goes', () => rmSync(join(root, 'web/src/main.tsx'))],
    ['web/dist goes', () => rmSync(join(root, 'web/dist'), { recursive: true })],
    ['a file in web/dist is edited', () => write('web/dist/index.html', '<p>stale</p>')],
    ['a file in web/dist goes', () => rmSync(join(root, 'web/dist/assets/index-1.js'))],
  ])('builds again when %s', async (_change, change) => {
    expect(await build()).toBe(1);
    change();
    expect(await build()).toBe(2);
    expect(await build()).toBe(2);
  });

  it('builds again after a build that failed', async () => {
    expect(await build()).toBe(1);
    write('web/src/main.tsx', 'render(;');
    await expect(
      buildWebUnlessCurrent(root, async () => {
        throw new Error('syntax error');
      }),
    ).rejects.toThrow('syntax error');
    expect(await build()).toBe(2);
  });
});

describe('the dist/ build', () => {
  it('keeps tsc’s incremental state inside dist/, so a deleted dist/ is built anew', () => {
    // tsc emits nothing when its state says the sources are unchanged, whether or not
    // the files it emitted are still there: the state must go with them.
    const { compilerOptions } = JSON.parse(
      readFileSync(join(ROOT, 'tsconfig.build.json'), 'utf8'),
    ) as { compilerOptions: { incremental?: boolean; outDir: string; tsBuildInfoFile: string } };
    expect(compilerOptions.incremental).toBe(true);
    expect(relative(compilerOptions.outDir, compilerOptions.tsBuildInfoFile)).toBe('.tsbuildinfo');
  });
});
