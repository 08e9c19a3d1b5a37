import { expect } from 'chai';
import { readdirSync, readFileSync } from 'node:fs';
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
function importsOf(file: string): Import[] {
  const text = withoutComments(readFileSync(join(repoRoot, file), 'utf8'));
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
  files.flatMap(importsOf).flatMap((found) => backReference(found) ?? []);

describe('layers: imports point one way (core < state < models < routing < http < api < composition root)', () => {
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

  it('names the file, the line and the import of a back-reference', () => {
    const upward = { from: 'server/state/stores.ts', line: 4, specifier: '../routing/health.ts', target: 'server/routing/health.ts' };
    expect(backReference(upward)).to.equal("server/state/stores.ts:4 imports '../routing/health.ts': state may not import from routing, a layer above it");
    const plugin = { from: 'providers/groq/index.ts', line: 2, specifier: '../../server/core/errors.ts', target: 'server/core/errors.ts' };
    expect(backReference(plugin)).to.equal("providers/groq/index.ts:2 imports '../../server/core/errors.ts': providers/ and catalog/ never import from server/");
    const downward = { from: 'server/api/completion.ts', line: 9, specifier: '../routing/keys.ts', target: 'server/routing/keys.ts' };
    expect(backReference(downward)).to.equal(undefined);
    expect(backReference({ ...downward, specifier: 'express', target: undefined })).to.equal(undefined);
  });
});
