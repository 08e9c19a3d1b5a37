import { expect } from 'chai';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { dropPastBound, keepNewest } from '../../server/state/bounded-map.ts';
import { repoRoot } from '../support/process.ts';

function sourceFiles(dir: string): string[] {
  const found: string[] = [];
  for (const entry of readdirSync(join(repoRoot, dir), { withFileTypes: true })) {
    const path = `${dir}/${entry.name}`;
    if (entry.isDirectory()) found.push(...sourceFiles(path));
    else if (/\.(ts|mts)$/.test(entry.name) && !entry.name.endsWith('.d.ts')) found.push(path);
  }
  return found;
}

/** The one module that drops a Map's oldest entry past a bound. */
const BOUNDED_MAP = 'server/state/bounded-map.ts';

/**
 * Ways of reaching a Map's first (least recently written) entry to drop it: its first key or
 * entry by `next()`, by spreading or `Array.from` and taking `[0]`, or a `for...of` that
 * deletes and breaks at once.
 */
const dropOldestIdioms: readonly RegExp[] = [
  /\.(?:keys|entries)\(\)\s*\.next\(\)/g,
  /\[\s*\.\.\.\s*[\w.]+\.(?:keys|entries)\(\)\s*\]\s*\[\s*0\s*\]/g,
  /Array\.from\(\s*[\w.]+\.(?:keys|entries)\(\)\s*\)\s*\[\s*0\s*\]/g,
  /for\s*\(\s*const\s+[^)]*\bof\s+([\w.]+)(?:\.keys\(\))?\s*\)\s*\{\s*\1\.delete\([^)]*\);?\s*break;?\s*\}/g,
];

/** Where `text` drops a Map's oldest entry its own way (the idiom may span lines), as `file:line`. */
function ownDropLoops(file: string, text: string): string[] {
  const lines = text.split('\n');
  const at = new Set<number>();
  for (const idiom of dropOldestIdioms) for (const match of text.matchAll(idiom)) at.add(text.slice(0, match.index).split('\n').length);
  return [...at].sort((a, b) => a - b).map((line) => `${file}:${line}: ${(lines[line - 1] as string).trim()}`);
}

describe('source rules: one bounded map', () => {
  it('no module of server/ or providers/ but the bounded map drops a Map\'s oldest entry itself', () => {
    const files = [...sourceFiles('server'), ...sourceFiles('providers')].filter((file) => file !== BOUNDED_MAP);
    expect(files.length).to.be.greaterThan(100);
    expect(files.flatMap((file) => ownDropLoops(file, readFileSync(join(repoRoot, file), 'utf8')))).to.deep.equal([]);
    // The bounded map itself is found by the same detection: it is the one place the idiom lives.
    expect(ownDropLoops(BOUNDED_MAP, readFileSync(join(repoRoot, BOUNDED_MAP), 'utf8'))).to.have.length.greaterThan(0);
  });

  it('finds each way of writing the loop, and names its file and line', () => {
    const written = [
      'if (map.size > max) map.delete(map.keys().next().value as string);',
      'const oldest = clients.keys()\n  .next();',
      'while (seen.size > max) seen.delete([...seen.keys()][0]);',
      'if (seen.size > max) seen.delete(Array.from(seen.keys())[0]);',
      'for (const key of seen.keys()) { seen.delete(key); break; }',
      'for (const [key] of this.cache) { this.cache.delete(key); break }',
    ];
    for (const text of written) expect(ownDropLoops('server/x.ts', `// a line\n${text}`), text).to.deep.equal([`server/x.ts:2: ${text.split('\n')[0]}`]);
    expect(ownDropLoops('server/x.ts', 'for (const [id, entry] of entries) if (entry.expiresAt <= now) drop(id);\nconst first = list[0];')).to.deep.equal([]);
  });

  it('keeps a Map to its bound, the least recently written going first, and names each entry dropped', () => {
    const map = new Map<string, number>();
    for (const [id, value] of [['a', 1], ['b', 2], ['c', 3], ['a', 4], ['d', 5]] as const) keepNewest(map, id, value, 3);
    expect([...map]).to.deep.equal([['c', 3], ['a', 4], ['d', 5]]);
    const dropped: string[] = [];
    map.set('e', 6);
    map.set('f', 7);
    dropPastBound(map, 2, (id) => dropped.push(id));
    expect(dropped).to.deep.equal(['c', 'a', 'd']);
    expect([...map.keys()]).to.deep.equal(['e', 'f']);
    dropPastBound(map, 0);
    expect(map.size).to.equal(0);
  });
});

/**
 * A folder of server/api/ holding a `request.ts` is one client API's: its files are the
 * per-API set (`validate`, `request`, `response`, `stream`, ...), parallel on purpose.
 */
const perApiFolders = (files: readonly string[]): Set<string> =>
  new Set(files.filter((file) => /^server\/api\/[^/]+\/request\.ts$/.test(file)).map((file) => file.slice(0, file.lastIndexOf('/') + 1)));

/** Names any number of folders may use: a folder's front door and its types. */
const SHARED_NAMES = new Set(['index.ts', 'types.ts']);

/** File names held by more than one file of `files` (a client API's folder and the shared names set aside), each with its files. */
function sharedNames(files: readonly string[]): string[] {
  const apiFolders = perApiFolders(files);
  const byName = new Map<string, string[]>();
  for (const file of files) {
    const name = file.slice(file.lastIndexOf('/') + 1);
    if (SHARED_NAMES.has(name) || apiFolders.has(file.slice(0, file.lastIndexOf('/') + 1))) continue;
    byName.set(name, [...(byName.get(name) ?? []), file]);
  }
  return [...byName].filter(([, held]) => held.length > 1).map(([name, held]) => `${name}: ${held.join(', ')}`);
}

describe('source rules: file names say what a file holds, once', () => {
  it('no two files of server/ share a name (index.ts, types.ts and the client APIs\' per-API file set aside)', () => {
    const files = sourceFiles('server');
    expect(perApiFolders(files).size).to.be.greaterThanOrEqual(4);
    expect(sharedNames(files)).to.deep.equal([]);
  });

  it('names each shared file name and the files that hold it', () => {
    const files = ['server/state/health.ts', 'server/routing/health.ts', 'server/api/chat/request.ts', 'server/api/chat/stream.ts', 'server/api/gemini/request.ts', 'server/api/gemini/stream.ts', 'server/api/providers/stream.ts', 'server/a/index.ts', 'server/b/index.ts'];
    expect(sharedNames(files)).to.deep.equal(['health.ts: server/state/health.ts, server/routing/health.ts']);
  });
});
