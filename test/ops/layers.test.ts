import { expect } from 'chai';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { repoRoot } from '../support/process.ts';

/*
 * The house's layers, lowest first. A module imports only from its own layer or
 * lower ones (and from catalog/, providers/, node_modules); providers/ and
 * catalog/ never import from server/. Settings (in
 * server/config/) are read by every layer and import none of them, so they sit
 * with core.
 */
const layers: ReadonlyArray<readonly [name: string, matches: (path: string) => boolean]> = [
  ['core', (path) => path.startsWith('server/core/') || path.startsWith('server/config/')],
  // Spans (OpenTelemetry): below every layer that hands a request's trace on; its SDK loads only when tracing is on.
  ['tracing', (path) => path.startsWith('server/tracing/')],
  ['state', (path) => path.startsWith('server/state/')],
  ['models', (path) => path.startsWith('server/models/')],
  ['routing', (path) => path.startsWith('server/routing/')],
  ['http', (path) => path.startsWith('server/http/')],
  ['api', (path) => path.startsWith('server/api/')],
  ['composition root', (path) => path.startsWith('server/')],
];

const rankOf = (path: string): number => layers.findIndex(([, matches]) => matches(path));

function sourceFiles(dir: string): string[] {
  const found: string[] = [];
  for (const entry of readdirSync(join(repoRoot, dir), { withFileTypes: true })) {
    const path = `${dir}/${entry.name}`;
    if (entry.isDirectory()) found.push(...sourceFiles(path));
    else if (/\.(ts|mts)$/.test(entry.name) && !entry.name.endsWith('.d.ts')) found.push(path);
  }
  return found;
}

interface Import {
  /** The importing file, from the repository root, and the line of the import. */
  readonly from: string;
  readonly line: number;
  /** As written, and resolved from the repository root (undefined for a package). */
  readonly specifier: string;
  readonly target: string | undefined;
}

/** Comments blanked out (their line breaks kept, so that lines still count right). */
const withoutComments = (text: string): string =>
  text.replace(/\/\*[\s\S]*?\*\//g, (comment) => comment.replace(/[^\n]/g, ' ')).replace(/(^|[\s;])\/\/.*$/gm, '$1');

/** `import ... from '...'`, `export ... from '...'`, `import '...'` and `import('...')`. */
const importPattern = /\bfrom\s*['"]([^'"\n]+)['"]|^\s*import\s*['"]([^'"\n]+)['"]|\bimport\s*\(\s*['"]([^'"\n]+)['"]\s*\)/gm;

/** Every static, dynamic and re-exporting import of a file. */
function importsOf(file: string, root: string = repoRoot): Import[] {
  const text = withoutComments(readFileSync(join(root, file), 'utf8'));
  return Array.from(text.matchAll(importPattern), (match) => {
    const specifier = (match[1] ?? match[2] ?? match[3]) as string;
    return {
      from: file,
      line: text.slice(0, match.index).split('\n').length,
      specifier,
      target: specifier.startsWith('.') ? relative(repoRoot, resolve(repoRoot, dirname(file), specifier)).split(sep).join('/') : undefined,
    };
  });
}

/** What is wrong with one import, if it runs back up: a lower layer reaching a higher one, or a plugin or the catalog reaching the server. */
function backReference(found: Import): string | undefined {
  if (found.target === undefined) return undefined;
  const where = `${found.from}:${found.line} imports '${found.specifier}'`;
  if (!found.from.startsWith('server/')) {
    return found.target.startsWith('server/') ? `${where}: providers/ and catalog/ never import from server/` : undefined;
  }
  if (!found.target.startsWith('server/')) return undefined;
  const [rank, targetRank] = [rankOf(found.from), rankOf(found.target)];
  if (targetRank <= rank) return undefined;
  return `${where}: ${layers[rank]?.[0]} may not import from ${layers[targetRank]?.[0]}, a layer above it`;
}

const backReferences = (files: readonly string[]): string[] =>
  files.flatMap((file) => importsOf(file)).flatMap((found) => backReference(found) ?? []);

/** A file's relative imports as files of the repository (`./x.ts`, or `./x/index.ts` for a folder). */
function importedFiles(file: string, known: ReadonlySet<string>, root: string): string[] {
  return importsOf(file, root).flatMap((found) => {
    if (found.target === undefined) return [];
    for (const candidate of [found.target, `${found.target}/index.ts`]) if (known.has(candidate)) return [candidate];
    return [];
  });
}

/** Every import cycle among `files` (type-only imports included), each as the files around it, from its smallest name. */
function importCycles(files: readonly string[], root: string = repoRoot): string[][] {
  const known = new Set(files);
  const graph = new Map(files.map((file) => [file, importedFiles(file, known, root)]));
  const cycles = new Map<string, string[]>();
  const state = new Map<string, 'visiting' | 'done'>();
  const path: string[] = [];
  const visit = (file: string): void => {
    state.set(file, 'visiting');
    path.push(file);
    for (const next of graph.get(file) ?? []) {
      if (state.get(next) === 'visiting') {
        const cycle = path.slice(path.indexOf(next));
        const start = cycle.indexOf([...cycle].sort()[0] as string);
        const rotated = [...cycle.slice(start), ...cycle.slice(0, start)];
        cycles.set(rotated.join(' -> '), rotated);
      } else if (!state.has(next)) visit(next);
    }
    path.pop();
    state.set(file, 'done');
  };
  for (const file of files) if (!state.has(file)) visit(file);
  return [...cycles.values()];
}

/** An import from above the routing layer that reaches past its front door, server/routing/index.ts. */
function pastFrontDoor(found: Import): string | undefined {
  if (!found.target?.startsWith('server/routing/') || found.from.startsWith('server/routing/')) return undefined;
  if (found.target === 'server/routing/index.ts' || found.target === 'server/routing') return undefined;
  return `${found.from}:${found.line} imports '${found.specifier}': import routing through server/routing/index.ts`;
}

/**
 * A provider family's module: a file of providers/ that builds models with an AI SDK
 * provider package (`@ai-sdk/openai-compatible`, `@ai-sdk/groq`, ...), beyond the
 * contract's own types (`@ai-sdk/provider`).
 */
const isFamilyModule = (file: string, root: string = repoRoot): boolean =>
  importsOf(file, root).some((found) => found.target === undefined && found.specifier.startsWith('@ai-sdk/') && found.specifier !== '@ai-sdk/provider');

/**
 * What is wrong with an import of routing that reaches past the plugins' contract: routing knows a
 * plugin only through providers/types.ts and the shared helpers beside it, never a plugin's folder
 * (providers/<id>/) or a provider family's module.
 */
function pastContract(found: Import, root: string = repoRoot): string | undefined {
  if (!found.from.startsWith('server/routing/') || !found.target?.startsWith('providers/')) return undefined;
  const where = `${found.from}:${found.line} imports '${found.specifier}'`;
  if (found.target.slice('providers/'.length).includes('/')) return `${where}: routing may not import a plugin's folder`;
  if (isFamilyModule(found.target, root)) return `${where}: routing may not import a provider family's module`;
  return undefined;
}

describe('layers: imports point one way (core < tracing < state < models < routing < http < api < composition root)', () => {
  const server = sourceFiles('server');
  const plugins = [...sourceFiles('providers'), ...sourceFiles('catalog')];

  it('finds the modules of every layer, and their imports', () => {
    for (const [name, matches] of layers) expect(server.some(matches), `no module in ${name}`).to.equal(true);
    const fromRouter = importsOf('server/routing/router.ts').map((found) => found.target);
    expect(fromRouter).to.include('server/core/redact.ts');
    // The entry point's only import of the server is a dynamic one.
    expect(importsOf('server/main.ts').map((found) => found.specifier)).to.deep.equal(['node:module', './serve.ts']);
  });

  it('no module in server/ imports from a layer above its own', () => {
    expect(backReferences(server)).to.deep.equal([]);
  });

  it('no provider plugin and no catalog module imports from server/', () => {
    expect(backReferences(plugins)).to.deep.equal([]);
  });

  it('no import cycle among the modules of server/, catalog/ and providers/, type-only imports included', () => {
    const cycles = importCycles([...server, ...plugins]).map((cycle) => [...cycle, cycle[0]].join(' -> '));
    expect(cycles).to.deep.equal([]);
  });

  it('finds a cycle, through a type-only import too, and names its files', () => {
    const root = mkdtempSync(join(tmpdir(), 'freeway-cycles-'));
    try {
      mkdirSync(join(root, 'server'));
      writeFileSync(join(root, 'server/a.ts'), "import type { B } from './b.ts';\nexport type A = B;\n");
      writeFileSync(join(root, 'server/b.ts'), "import { c } from './c.ts';\nexport type B = string;\nexport const b = c;\n");
      writeFileSync(join(root, 'server/c.ts'), "import type { A } from './a.ts';\nexport const c: A | undefined = undefined;\n");
      const files = ['server/a.ts', 'server/b.ts', 'server/c.ts'];
      expect(importCycles(files, root)).to.deep.equal([['server/a.ts', 'server/b.ts', 'server/c.ts']]);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });

  it('above routing (http/, api/, the composition root), routing is imported through its front door, server/routing/index.ts', () => {
    const outside = server.filter((file) => !file.startsWith('server/routing/'));
    expect(outside.flatMap((file) => importsOf(file)).flatMap((found) => pastFrontDoor(found) ?? [])).to.deep.equal([]);
  });

  it('routing knows the plugins only through their contract: no plugin folder, no provider family\'s module', () => {
    const routing = server.filter((file) => file.startsWith('server/routing/'));
    const toProviders = routing.flatMap((file) => importsOf(file)).filter((found) => found.target?.startsWith('providers/'));
    expect(toProviders.map((found) => found.target)).to.include('providers/types.ts');
    expect(toProviders.flatMap((found) => pastContract(found) ?? [])).to.deep.equal([]);
  });

  it('names a routing import of a plugin folder or of a provider family\'s module', () => {
    const family = { from: 'server/routing/upstream.ts', line: 3, specifier: '../../providers/openai-compatible.ts', target: 'providers/openai-compatible.ts' };
    expect(isFamilyModule('providers/openai-compatible.ts')).to.equal(true);
    expect(pastContract(family)).to.equal("server/routing/upstream.ts:3 imports '../../providers/openai-compatible.ts': routing may not import a provider family's module");
    const plugin = { from: 'server/routing/plan.ts', line: 2, specifier: '../../providers/groq/index.ts', target: 'providers/groq/index.ts' };
    expect(pastContract(plugin)).to.equal("server/routing/plan.ts:2 imports '../../providers/groq/index.ts': routing may not import a plugin's folder");
    const contract = { ...family, specifier: '../../providers/types.ts', target: 'providers/types.ts' };
    expect(pastContract(contract)).to.equal(undefined);
    // Above routing, the composition root may build plugins' models.
    expect(pastContract({ ...family, from: 'server/app.ts' })).to.equal(undefined);
  });

  it('names the file, the line and the import of a back-reference', () => {
    const upward = { from: 'server/state/stores.ts', line: 4, specifier: '../routing/health-policy.ts', target: 'server/routing/health-policy.ts' };
    expect(backReference(upward)).to.equal("server/state/stores.ts:4 imports '../routing/health-policy.ts': state may not import from routing, a layer above it");
    const plugin = { from: 'providers/groq/index.ts', line: 2, specifier: '../../server/core/errors.ts', target: 'server/core/errors.ts' };
    expect(backReference(plugin)).to.equal("providers/groq/index.ts:2 imports '../../server/core/errors.ts': providers/ and catalog/ never import from server/");
    const downward = { from: 'server/api/completion.ts', line: 9, specifier: '../routing/plan.ts', target: 'server/routing/plan.ts' };
    expect(backReference(downward)).to.equal(undefined);
    expect(backReference({ ...downward, specifier: 'express', target: undefined })).to.equal(undefined);
  });
});
