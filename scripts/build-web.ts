/**
 * `npm run build`'s web step: Vite builds the web UI (web/ → web/dist) unless the last
 * successful build's inputs and outputs are unchanged. `npm start`, `npm test` and
 * `npm pack` each run `npm run build`; without this they rebuilt an unchanged UI every
 * time.
 *
 * The stamp, written after each successful build, holds a content hash of every file the
 * build read: each file under web/ (sources, index.html, vite.config.ts, and what Vite
 * would read without importing it, as `.env` files or `public/`), package-lock.json
 * (Vite's, its plugins' and the UI's libraries' versions) and each module Vite's module
 * graph loaded from elsewhere (`src/`, `node_modules/`); and of every file in web/dist.
 * Vite runs when there is no stamp, or when a hash differs, or a file appeared under web/
 * or web/dist, or one went: a deleted or edited web/dist is rebuilt, not trusted.
 * Content hashes, not modification times: a git checkout or a copy sets those anyhow.
 *
 * Run with `node scripts/build-web.ts` (Node strips the types).
 */
import { createHash } from 'node:crypto';
import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  realpathSync,
  writeFileSync,
} from 'node:fs';
import { dirname, isAbsolute, join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Plugin } from 'vite';

/** The stamp, under the project root: in node_modules/.cache, so `npm pack` never ships it. */
export const WEB_BUILD_STAMP = 'node_modules/.cache/holdpoint/web-build.json';

/** What the web UI's build produces, under the project root. */
const WEB_DIST = 'web/dist';

/** Files every web build depends on besides those under web/, under the project root. */
const SHARED_INPUTS = ['package-lock.json'];

/** Path → SHA-256 of its content, or null for a file that is not there. */
type FileHashes = Record<string, string | null>;

/** What one successful build read and wrote, by project-relative path. */
interface WebBuildStamp {
  inputs: FileHashes;
  outputs: FileHashes;
}

/**
 * A web build: produces web/dist under the project root and resolves the absolute paths
 * of the modules it read (entries that are not absolute paths, as Vite's virtual modules,
 * are ignored).
 */
export type WebBuild = () => Promise<string[]>;

/** Every file under `dir` (project-relative, `/`-separated), leaving out `skip`. */
function filesUnder(root: string, dir: string, skip?: string): string[] {
  if (!existsSync(join(root, dir))) return [];
  return readdirSync(join(root, dir), { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => relative(root, join(entry.parentPath, entry.name)).split(sep).join('/'))
    .filter((path) => skip === undefined || !`${path}/`.startsWith(`${skip}/`))
    .sort();
}

function hashFiles(root: string, paths: Iterable<string>): FileHashes {
  const hashes: FileHashes = {};
  for (const path of paths) {
    const file = join(root, path);
    hashes[path] = existsSync(file)
      ? createHash('sha256').update(readFileSync(file)).digest('hex')
      : null;
  }
  return hashes;
}

function sameHashes(a: FileHashes, b: FileHashes): boolean {
  const paths = Object.keys(a);
  return paths.length === Object.keys(b).length && paths.every((path) => a[path] === b[path]);
}

/** The files under web/ (web/dist aside) and those every build reads. */
function declaredInputs(root: string): string[] {
  return [...filesUnder(root, 'web', WEB_DIST), ...SHARED_INPUTS];
}

function readStamp(root: string): WebBuildStamp | undefined {
  try {
    return JSON.parse(readFileSync(join(root, WEB_BUILD_STAMP), 'utf8')) as WebBuildStamp;
  } catch {
    return undefined;
  }
}

/** Whether web/dist is what the stamped build wrote, from inputs as they are now. */
function stampIsCurrent(root: string, stamp: WebBuildStamp): boolean {
  const inputs = new Set([...declaredInputs(root), ...Object.keys(stamp.inputs)]);
  return (
    sameHashes(hashFiles(root, inputs), stamp.inputs) &&
    sameHashes(hashFiles(root, filesUnder(root, WEB_DIST)), stamp.outputs)
  );
}

/**
 * Runs `build` unless the stamp under `root` says web/dist was built from inputs with the
 * content they have now (and web/dist is as that build left it); after a build, writes
 * the stamp. Resolves whether it built.
 */
export async function buildWebUnlessCurrent(root: string, build: WebBuild): Promise<boolean> {
  const stamp = readStamp(root);
  if (stamp && stampIsCurrent(root, stamp)) return false;
  // Hashed before the build: a file edited while it runs differs from the stamp next time.
  const declared = hashFiles(root, declaredInputs(root));
  const modulesRead = (await build())
    .map((id) => id.replace(/\?.*$/, ''))
    .filter((id) => isAbsolute(id))
    .map((id) => relative(root, id).split(sep).join('/'))
    .filter((path) => !(path in declared));
  const next: WebBuildStamp = {
    inputs: { ...declared, ...hashFiles(root, new Set(modulesRead)) },
    outputs: hashFiles(root, filesUnder(root, WEB_DIST)),
  };
  mkdirSync(dirname(join(root, WEB_BUILD_STAMP)), { recursive: true });
  writeFileSync(join(root, WEB_BUILD_STAMP), `${JSON.stringify(next, null, 2)}\n`);
  return true;
}

/** Vite's production build of web/ (web/vite.config.ts), resolving its module graph's ids. */
async function viteBuild(root: string): Promise<string[]> {
  const { build } = await import('vite');
  let moduleIds: string[] = [];
  const recordModules: Plugin = {
    name: 'holdpoint:record-modules',
    generateBundle() {
      moduleIds = [...this.getModuleIds()];
    },
  };
  await build({ configFile: join(root, 'web', 'vite.config.ts'), plugins: [recordModules] });
  return moduleIds;
}

// Run as a script, not imported (the test imports it); `import.meta.main` needs Node 24.2.
if (process.argv[1] && realpathSync(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const root = fileURLToPath(new URL('..', import.meta.url));
  const built = await buildWebUnlessCurrent(root, () => viteBuild(root));
  if (!built) {
    console.log(
      `web/dist is up to date (inputs unchanged since the build stamped in ${WEB_BUILD_STAMP}): vite build skipped`,
    );
  }
}
