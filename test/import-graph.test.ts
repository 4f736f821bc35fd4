import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseSync, Visitor } from 'vite';
import { describe, expect, it } from 'vitest';

// The import graph of src/: no module imports another in a circle, and nothing imports
// upward across the layers docs/architecture.md ("Layers") draws.

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const SRC = join(ROOT, 'src');

/**
 * The layers, lowest first, each named by what it holds under src/ (a folder, or a file
 * at src/'s top). A module may import its own layer and the layers of a lower rank;
 * layers of one rank stand side by side and import neither each other nor anything
 * above. The session's rules (its transitions and shapes) and the agents know only
 * `core`; the store keeps sessions by those rules and knows nothing of the runtime; telemetry reads
 * the store's commits and the runtime starts its spans; the transports call the
 * runtime; the library (createHoldpoint) wires them; the command (config, main, bin) and the
 * package's entry points (`holdpoint`, `holdpoint/workflows`) stand on top.
 */
const LAYERS: { layer: string; rank: number; holds: string[] }[] = [
  { layer: 'core', rank: 0, holds: ['core'] },
  { layer: 'session', rank: 1, holds: ['session'] },
  { layer: 'agents', rank: 1, holds: ['agents'] },
  { layer: 'store', rank: 2, holds: ['store'] },
  { layer: 'telemetry', rank: 3, holds: ['telemetry'] },
  { layer: 'runtime', rank: 4, holds: ['runtime'] },
  { layer: 'transports', rank: 5, holds: ['transports'] },
  { layer: 'library', rank: 6, holds: ['library'] },
  { layer: 'the command', rank: 7, holds: ['config', 'main', 'bin'] },
  { layer: 'the entry points', rank: 8, holds: ['index.ts', 'types.ts', 'workflows.ts'] },
];

/** The modules of src/: every .ts file but tests and their support files. */
function sourcesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourcesUnder(path);
    const isModule =
      entry.name.endsWith('.ts') &&
      !entry.name.endsWith('.test.ts') &&
      !entry.name.endsWith('.test-support.ts');
    return isModule ? [path] : [];
  });
}

/**
 * The module specifiers `source` imports: static imports and re-exports (type-only
 * ones too), `import(...)` of a literal (in code or in a type), `import x = require(...)`.
 * Parsed, so an import written in a comment or a string is no import.
 */
function specifiersOf(file: string, source: string): string[] {
  const parsed = parseSync(file, source, { lang: 'ts', sourceType: 'module' });
  if (parsed.errors.length > 0)
    throw new Error(`${file} does not parse: ${parsed.errors[0]?.message}`);
  const specifiers: string[] = [];
  /** A module named by a literal: a string, or a template without `${}`. */
  const literal = (
    node: { type: string; value?: unknown; quasis?: unknown[]; expressions?: unknown[] } | null,
  ) => {
    if (node?.type === 'Literal' && typeof node.value === 'string') specifiers.push(node.value);
    if (node?.type === 'TemplateLiteral' && node.expressions?.length === 0) {
      const [quasi] = node.quasis as { value: { cooked: string } }[];
      if (quasi) specifiers.push(quasi.value.cooked);
    }
  };
  new Visitor({
    ImportDeclaration: (node) => literal(node.source),
    ExportNamedDeclaration: (node) => literal(node.source),
    ExportAllDeclaration: (node) => literal(node.source),
    ImportExpression: (node) => literal(node.source),
    TSImportType: (node) => literal(node.source),
    TSExternalModuleReference: (node) => literal(node.expression),
  }).visit(parsed.program);
  return specifiers;
}

/** The file a relative specifier names (`./x.js` is `./x.ts` in source), if any. */
function resolveRelative(from: string, specifier: string): string | undefined {
  const target = resolve(dirname(from), specifier);
  const candidates = [
    target.replace(/\.js$/, '.ts'),
    target,
    `${target}.ts`,
    join(target, 'index.ts'),
  ];
  return candidates.find((candidate) => candidate.endsWith('.ts') && existsSync(candidate));
}

interface ImportGraph {
  /** Module → the modules it imports (relative imports only: packages are not src/). */
  edges: Map<string, Set<string>>;
  /** Relative imports that name no module of the graph (a missing file, a test's support). */
  unresolved: string[];
}

function importGraph(files: string[]): ImportGraph {
  const modules = new Set(files);
  const edges = new Map<string, Set<string>>();
  const unresolved: string[] = [];
  for (const file of files) {
    const targets = new Set<string>();
    for (const specifier of specifiersOf(file, readFileSync(file, 'utf8'))) {
      if (!specifier.startsWith('.')) continue;
      const target = resolveRelative(file, specifier);
      if (target && modules.has(target)) targets.add(target);
      else unresolved.push(`${shown(file)}: '${specifier}'`);
    }
    edges.set(file, targets);
  }
  return { edges, unresolved };
}

/** A module's path as a reader finds it: relative to the repository. */
function shown(file: string): string {
  return relative(ROOT, file);
}

/**
 * The circles of the graph: each strongly connected component (Tarjan's) of more than
 * one module, or of one that imports itself, with its modules (sorted) and one circle
 * through them, a path that starts and ends on the same module.
 */
function circlesOf(edges: Map<string, Set<string>>): { modules: string[]; circle: string[] }[] {
  const index = new Map<string, number>();
  const lowLink = new Map<string, number>();
  const onStack = new Set<string>();
  const stack: string[] = [];
  const components: string[][] = [];
  const connect = (node: string): void => {
    index.set(node, index.size);
    lowLink.set(node, index.get(node) ?? 0);
    stack.push(node);
    onStack.add(node);
    for (const next of edges.get(node) ?? []) {
      if (!index.has(next)) {
        connect(next);
        lowLink.set(node, Math.min(lowLink.get(node) ?? 0, lowLink.get(next) ?? 0));
      } else if (onStack.has(next)) {
        lowLink.set(node, Math.min(lowLink.get(node) ?? 0, index.get(next) ?? 0));
      }
    }
    if (lowLink.get(node) !== index.get(node)) return;
    const component: string[] = [];
    let member: string | undefined;
    do {
      member = stack.pop();
      if (member === undefined) break;
      onStack.delete(member);
      component.push(member);
    } while (member !== node);
    const selfImport = component.length === 1 && edges.get(node)?.has(node);
    if (component.length > 1 || selfImport) components.push(component);
  };
  for (const node of edges.keys()) if (!index.has(node)) connect(node);
  return components.map((component) => ({
    modules: component.sort(),
    circle: circleThrough(edges, new Set(component)),
  }));
}

/** A shortest path from the component's first module (sorted) back to it, inside it. */
function circleThrough(edges: Map<string, Set<string>>, component: Set<string>): string[] {
  const [start] = [...component].sort();
  if (start === undefined) return [];
  const cameFrom = new Map<string, string>();
  const queue = [start];
  while (queue.length > 0) {
    const node = queue.shift() as string;
    for (const next of edges.get(node) ?? []) {
      if (!component.has(next)) continue;
      if (next === start) {
        const path = [node];
        for (let first = node; first !== start; first = cameFrom.get(first) ?? start) {
          path.unshift(cameFrom.get(first) ?? start);
        }
        return [...path, start];
      }
      if (!cameFrom.has(next)) {
        cameFrom.set(next, node);
        queue.push(next);
      }
    }
  }
  return [start, start];
}

/** The layer holding `file` (by its first path step under src/), if one does. */
function layerOf(file: string): (typeof LAYERS)[number] | undefined {
  const [step] = relative(SRC, file).split(/[\\/]/);
  return LAYERS.find((layer) => step !== undefined && layer.holds.includes(step));
}

const FILES = sourcesUnder(SRC);
const GRAPH = importGraph(FILES);

describe('the import graph of src/', () => {
  it('reads every import form: static, type-only, re-exports, import() of a literal, require', () => {
    const source = [
      "import type { A } from './a.js';",
      "import { type B, c } from './b.js';",
      "import './side-effect.js';",
      "export * from './d.js';",
      "export type { E } from './e.js';",
      "const f = await import('./f.js');",
      'const t = await import(`./t.js`);',
      "type G = import('./g.js').G;",
      "import legacy = require('./legacy.js');",
      "// import { no } from './commented.js';",
      'const s = "import { no } from \'./quoted.js\'";',
      'const r = /[\'"]/;',
      "const named = './computed.js'; await import(named);",
    ].join('\n');
    expect(specifiersOf('sample.ts', source).sort()).toEqual(
      [
        './a.js',
        './b.js',
        './d.js',
        './e.js',
        './f.js',
        './g.js',
        './legacy.js',
        './side-effect.js',
        './t.js',
      ].sort(),
    );
  });

  it('finds a circle and names its modules', () => {
    const edges = new Map([
      ['a', new Set(['b'])],
      ['b', new Set(['c'])],
      ['c', new Set(['a', 'd'])],
      ['d', new Set<string>()],
    ]);
    expect(circlesOf(edges)).toEqual([{ modules: ['a', 'b', 'c'], circle: ['a', 'b', 'c', 'a'] }]);
  });

  it('every relative import names a module of src/', () => {
    expect(FILES.length).toBeGreaterThan(200);
    expect(GRAPH.unresolved).toEqual([]);
  });

  it('no module imports another in a circle', () => {
    const circles = circlesOf(GRAPH.edges).map(
      ({ modules, circle }) =>
        `${modules.length} modules import one another: ${modules.map(shown).join(', ')}` +
        ` (for one: ${circle.map(shown).join(' -> ')})`,
    );
    expect(circles, `import circles:\n${circles.join('\n')}`).toEqual([]);
  });

  it('every module lies in a layer of docs/architecture.md', () => {
    const unplaced = FILES.filter((file) => layerOf(file) === undefined).map(shown);
    expect(unplaced).toEqual([]);
  });

  it('reaches the HTTP layer from outside it only through its public surfaces', () => {
    const http = join(SRC, 'transports', 'http');
    const surfaces = new Set(
      ['index.ts', 'operations/index.ts', 'wire/index.ts'].map((file) => join(http, file)),
    );
    const inHttp = (file: string) => file.startsWith(`${http}/`);
    const wrong = [...GRAPH.edges].flatMap(([file, targets]) =>
      inHttp(file)
        ? []
        : [...targets]
            .filter((target) => inHttp(target) && !surfaces.has(target))
            .map((target) => `${shown(file)} -> ${shown(target)}`),
    );
    expect(wrong).toEqual([]);
  });

  it('nothing imports upward, nor sideways into a layer beside its own', () => {
    const wrong: string[] = [];
    for (const [file, targets] of GRAPH.edges) {
      const from = layerOf(file);
      for (const target of targets) {
        const to = layerOf(target);
        if (!from || !to || from === to || from.rank > to.rank) continue;
        wrong.push(`${shown(file)} (${from.layer}) -> ${shown(target)} (${to.layer})`);
      }
    }
    expect(wrong).toEqual([]);
  });
});
