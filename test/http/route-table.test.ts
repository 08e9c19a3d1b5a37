import { expect } from 'chai';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { apisDocPath, apisDocSource } from '../../scripts/apis-doc.ts';
import { fixedPaths, methodsByPath, routeOfPath, routeTable, wildcardPrefix, type RouteRow } from '../../server/http/route-table.ts';
import { startFreeway, type RunningFreeway } from '../support/freeway.ts';
import { repoRoot } from '../support/process.ts';

/**
 * The route table (server/http/route-table.ts) is where every path Freeway serves is written:
 * mounting, the 405s, metrics' labels, the request log, the 404's hints and docs/apis.md
 * read it, and no other file of server/ writes a served path.
 */

function serverFiles(dir: string): string[] {
  return readdirSync(join(repoRoot, dir), { withFileTypes: true }).flatMap((entry) => {
    const path = `${dir}/${entry.name}`;
    if (entry.isDirectory()) return serverFiles(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

/** Where a `/` starts a regular expression rather than a division: after an operator, a bracket or a keyword such as `return`. */
const beforeRegex = /(?:^|[(,=:[!&|?{};+\-*%<>~^]|\breturn|\btypeof|\bcase)\s*$/;

/** The index just past a regular expression literal that starts at `from` (its `/`). */
function regexEnd(text: string, from: number): number {
  let at = from + 1;
  let inClass = false;
  for (; at < text.length && text[at] !== '\n'; at += 1) {
    const char = text[at];
    if (char === '\\') at += 1;
    else if (char === '[') inClass = true;
    else if (char === ']') inClass = false;
    else if (char === '/' && !inClass) return at + 1;
  }
  return at;
}

/** A quoted string or a template that starts at `from`: its text parts, and the index just past it. Template expressions are scanned as code. */
function readString(text: string, from: number, literals: string[]): number {
  const quote = text[from];
  let at = from + 1;
  let literal = '';
  while (at < text.length && text[at] !== quote) {
    if (text[at] === '\\') {
      literal += text.slice(at, at + 2);
      at += 2;
    } else if (quote === '`' && text.startsWith('${', at)) {
      literals.push(literal);
      literal = '';
      at = scan(text, at + 2, literals, '}');
    } else {
      literal += text[at];
      at += 1;
    }
  }
  literals.push(literal);
  return at + 1;
}

/** Code from `from` to its closing `until` (or the end): string literals collected, comments and regular expressions skipped. */
function scan(text: string, from: number, literals: string[], until?: string): number {
  let depth = 0;
  let at = from;
  while (at < text.length) {
    const char = text[at] as string;
    if (char === "'" || char === '"' || char === '`') at = readString(text, at, literals);
    else if (text.startsWith('//', at)) at = text.indexOf('\n', at) === -1 ? text.length : text.indexOf('\n', at);
    else if (text.startsWith('/*', at)) at = text.indexOf('*/', at) === -1 ? text.length : text.indexOf('*/', at) + 2;
    else if (char === '/' && beforeRegex.test(text.slice(Math.max(0, at - 12), at))) at = regexEnd(text, at);
    else {
      if (char === '{') depth += 1;
      if (char === '}' && until === '}' && depth-- === 0) return at + 1;
      at += 1;
    }
  }
  return at;
}

/** The string literals of a TypeScript source: quoted strings and the text parts of templates; comments and regular expressions hold none. */
function stringLiterals(text: string): string[] {
  const literals: string[] = [];
  scan(text, 0, literals);
  return literals;
}

/** The strings that are served paths: each row's path, and a wildcard row's prefix (`/v1/models/`); the console's root `/` is every path's first character. */
const servedStrings = [...new Set(routeTable.flatMap((row) => [row.path, wildcardPrefix(row)]))].filter((path) => path !== '/');

/** Each file of server/ that writes a served path as a string of its own, as `file: path`. */
function pathsWrittenOutside(files: readonly string[], tableFile: string): string[] {
  return files.flatMap((file) => {
    if (file === tableFile) return [];
    const literals = new Set(stringLiterals(readFileSync(join(repoRoot, file), 'utf8')));
    return servedStrings.filter((path) => literals.has(path)).map((path) => `${file}: ${path}`);
  });
}

describe('the route table: each served path written once', () => {
  it('no file of server/ but the route table writes a served path', () => {
    const files = serverFiles('server');
    expect(files).to.include('server/app.ts');
    expect(pathsWrittenOutside(files, 'server/http/route-table.ts')).to.deep.equal([]);
  });

  it('the check finds a served path written in another file (a copy of the table is caught)', () => {
    const table = 'server/http/route-table.ts';
    expect(pathsWrittenOutside([table], 'server/app.ts')).to.include(`${table}: /v1/chat/completions`).and.to.include(`${table}: /v1/models/*id`);
    expect(stringLiterals("app.post('/v1/messages', x); const y = `${a}/v1/embeddings`; const z = \"it's\"; // '/v1/responses'\nconst r = /'[/]/; /* '/health' */ `a${{ b: 'c' }.b}d`")).to.deep.equal([
      '/v1/messages',
      '',
      '/v1/embeddings',
      "it's",
      'a',
      'c',
      'd',
    ]);
  });

  it('declares each method and path once', () => {
    const keys = routeTable.map((row) => `${row.method} ${row.path}`);
    expect(new Set(keys).size).to.equal(keys.length);
  });

  it("names a path no route ran for by the table's route: fixed paths as they are, wildcards by their pattern, anything else not at all", () => {
    expect(routeOfPath('/v1/embeddings')).to.equal('/v1/embeddings');
    expect(routeOfPath('/v1/audio/transcriptions')).to.equal('/v1/audio/transcriptions');
    expect(routeOfPath('/v1/models/groq/some-model-0123456789abcdef')).to.equal('/v1/models/*id');
    expect(routeOfPath('/v1beta/models/free:auto:generateContent')).to.equal('/v1beta/models/*name');
    expect(routeOfPath('/v1/sk-0123456789abcdefghij')).to.equal(undefined);
    expect(routeOfPath('/')).to.equal(undefined);
    for (const path of fixedPaths) expect(routeOfPath(path)).to.equal(path);
  });

  it("docs/apis.md's endpoint list is the table's (run `npm run docs` after changing it)", () => {
    const page = readFileSync(apisDocPath, 'utf8');
    expect(page).to.equal(apisDocSource(page));
    for (const row of routeTable) expect(page).to.include(`\`${row.method} `);
  });
});

/** A path of a row, with its wildcard filled in as a client would send it. */
function concretePath(row: RouteRow): string {
  const prefix = wildcardPrefix(row);
  if (prefix === row.path) return row.path;
  if (row.handler === 'console.file') return `${prefix}console.js`;
  return `${prefix}${row.method === 'POST' ? 'free:auto:countTokens' : 'groq/llama-3.3-70b-versatile'}`;
}

describe('the route table over HTTP: every row is mounted, with the 405 of its path', function () {
  this.timeout(30_000);
  let freeway: RunningFreeway;
  before(async () => {
    freeway = await startFreeway();
    freeway.readiness.phase = 'ready';
  });
  after(() => freeway.close());

  for (const row of routeTable) {
    it(`${row.method} ${row.path} reaches its handler, not the 404 of an unknown route`, async () => {
      const res = await fetch(`${freeway.url}${concretePath(row)}`, {
        method: row.method,
        headers: row.body === 'json' ? { 'Content-Type': 'application/json' } : {},
        body: row.method === 'POST' ? '{}' : undefined,
      });
      const text = await res.text();
      expect(res.status, text).to.not.equal(405);
      expect(text).to.not.match(/Unknown route/);
    });
  }

  for (const { path, allow } of methodsByPath(routeTable.filter((row) => row.mount === undefined || row.mount === 'metrics'))) {
    it(`PUT ${path}: 405, Allow: ${allow}`, async () => {
      const row = routeTable.find((candidate) => candidate.path === path) as RouteRow;
      const concrete = concretePath(row);
      const res = await fetch(`${freeway.url}${concrete}`, { method: 'PUT' });
      const body = (await res.json()) as { error: { type: string; message: string } };
      expect(res.status).to.equal(405);
      expect(res.headers.get('allow')).to.equal(allow);
      expect(body.error.message).to.equal(`Method PUT is not allowed on ${concrete}. Allowed: ${allow}.`);
    });
  }
});
