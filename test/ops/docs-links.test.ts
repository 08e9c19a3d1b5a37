/**
 * The documentation a newcomer walks: every relative link in README.md, BENCH.md and
 * docs/*.md points at a file that exists, and every `#anchor` at a heading (or an
 * `<a id>`) of the page it names, by GitHub's slug rules. Every page of docs/ is
 * linked from the README, so none is left where nobody finds it.
 */
import { expect } from 'chai';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { repoRoot } from '../support/process.ts';

interface Link {
  readonly target: string;
  readonly line: number;
}

interface Page {
  readonly links: readonly Link[];
  readonly anchors: ReadonlySet<string>;
}

const fence = /^ {0,3}(`{3,}|~{3,})/;

/** The lines outside fenced code blocks, with the lines inside blanked so that line numbers hold. */
function proseLines(markdown: string): string[] {
  let open: string | undefined;
  return markdown.split('\n').map((line) => {
    const marker = fence.exec(line)?.[1];
    if (open === undefined && marker !== undefined) {
      open = marker;
      return '';
    }
    if (open !== undefined) {
      if (marker !== undefined && marker[0] === open[0] && marker.length >= open.length) open = undefined;
      return '';
    }
    return line;
  });
}

/** GitHub's anchor for a heading: its text, lower-cased, without punctuation but `-` and `_`, spaces as `-`. */
function slug(heading: string): string {
  const text = heading
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/<[^>]+>/g, '')
    .replace(/[`*]/g, '');
  return text.toLowerCase().replace(/[^\p{L}\p{M}\p{N}\p{Pc}\- ]/gu, '').replace(/ /g, '-');
}

const heading = /^ {0,3}#{1,6}\s+(.*?)(?:\s+#+)?\s*$/;
const htmlAnchor = /<a\s[^>]*\b(?:id|name)="([^"]+)"/g;
const inlineCode = /(`+)(?:(?!\1)[\s\S])+?\1/g;
const link = /!?\[(?:[^[\]]|\[[^\]]*\])*\]\(\s*<?([^)\s>]*)>?(?:\s+(?:"[^"]*"|'[^']*'))?\s*\)/g;
const definition = /^ {0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s|$)/;

/** The links and anchors of one markdown page; code (fenced or inline) holds neither. */
function readPage(markdown: string): Page {
  const lines = proseLines(markdown);
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  for (const line of lines) {
    const text = heading.exec(line)?.[1];
    if (text !== undefined) {
      const base = slug(text);
      const count = seen.get(base) ?? 0;
      seen.set(base, count + 1);
      anchors.add(count === 0 ? base : `${base}-${count}`);
    }
    for (const match of line.matchAll(htmlAnchor)) anchors.add(match[1] as string);
  }
  const links: Link[] = [];
  // Links may wrap across lines, never across paragraphs; the offsets give each its line.
  let offset = 0;
  for (const [i, paragraph] of lines.join('\n').split(/(\n[ \t]*\n)/).entries()) {
    if (i % 2 === 1) {
      offset += paragraph.length; // a blank line between paragraphs
      continue;
    }
    const prose = paragraph.replace(inlineCode, (code) => code.replace(/[^\n]/g, ' '));
    for (const match of prose.matchAll(link)) {
      links.push({ target: match[1] as string, line: lineOf(lines, offset + (match.index ?? 0)) });
    }
    for (const [n, line] of prose.split('\n').entries()) {
      const target = definition.exec(line)?.[1];
      if (target !== undefined) links.push({ target, line: lineOf(lines, offset) + n });
    }
    offset += paragraph.length;
  }
  return { links, anchors };
}

function lineOf(lines: readonly string[], offset: number): number {
  let at = 0;
  for (const [i, line] of lines.entries()) {
    at += line.length + 1;
    if (offset < at) return i + 1;
  }
  return lines.length;
}

/** Every broken link of the given pages (paths relative to the repository), as `page:line: why`. */
function brokenLinks(pages: ReadonlyMap<string, string>, root: string): string[] {
  const read = new Map<string, Page>();
  const pageAt = (path: string): Page => {
    let page = read.get(path);
    if (page === undefined) {
      page = readPage(pages.get(path) ?? readFileSync(join(root, path), 'utf8'));
      read.set(path, page);
    }
    return page;
  };
  const problems: string[] = [];
  for (const path of pages.keys()) {
    for (const { target, line } of pageAt(path).links) {
      if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue; // https:, mailto:: not ours to check
      const hash = target.indexOf('#');
      const file = decodeURIComponent(hash < 0 ? target : target.slice(0, hash));
      const anchor = hash < 0 ? undefined : decodeURIComponent(target.slice(hash + 1));
      const to = file === '' ? path : relative(root, resolve(root, file.startsWith('/') ? `.${file}` : join(dirname(path), file)));
      const where = `${path}:${line}: ${target}`;
      if (to.startsWith('..')) {
        problems.push(`${where} points outside the repository`);
        continue;
      }
      if (!pages.has(to) && !existsSync(join(root, to))) {
        problems.push(`${where}: ${to} does not exist`);
        continue;
      }
      if (anchor === undefined || !to.endsWith('.md')) continue;
      if (!pageAt(to).anchors.has(anchor)) problems.push(`${where}: ${to} has no heading #${anchor}`);
    }
  }
  return problems;
}

const docs = readdirSync(join(repoRoot, 'docs'))
  .filter((name) => name.endsWith('.md'))
  .sort()
  .map((name) => `docs/${name}`);
const walked = ['README.md', 'BENCH.md', ...docs];
const pages = new Map(walked.map((path) => [path, readFileSync(join(repoRoot, path), 'utf8')]));

describe('the documentation links', function () {
  it('every relative link of README.md, BENCH.md and docs/*.md reaches a file, and every #anchor a heading', function () {
    const linkCount = [...pages.values()].reduce((sum, text) => sum + readPage(text).links.length, 0);
    expect(linkCount, 'links found').to.be.greaterThan(50);
    expect(brokenLinks(pages, repoRoot)).to.deep.equal([]);
  });

  it('the README links every page of docs/', function () {
    const fromReadme = new Set(
      readPage(pages.get('README.md') as string).links.map(({ target }) => target.split('#')[0]),
    );
    expect(docs.filter((path) => !fromReadme.has(path))).to.deep.equal([]);
  });

  it('makes anchors as GitHub does', function () {
    const anchors: ReadonlyArray<readonly [string, string]> = [
      ['`GET /livez` and `GET /readyz`', 'get-livez-and-get-readyz'],
      ['HOSTED_TOOLS', 'hosted_tools'],
      ['Routing, failover and health', 'routing-failover-and-health'],
      ['`?check=1`: check the keys now', 'check1-check-the-keys-now'],
      ['Latest figures (2026-11-23: Responses and Messages APIs, key pools)', 'latest-figures-2026-11-23-responses-and-messages-apis-key-pools'],
      ['[The console](docs/console.md) and **more**', 'the-console-and-more'],
    ];
    for (const [text, anchor] of anchors) expect(slug(text), text).to.equal(anchor);
    const page = readPage('# Errors\n\n## Errors\n\n<a id="budgets"></a>text\n');
    expect([...page.anchors]).to.have.members(['errors', 'errors-1', 'budgets']);
  });

  it('reports a missing file, a missing heading and a link out of the repository, and ignores code and URLs', function () {
    const page = [
      '# Title',
      '',
      'See [a](missing.md), [b](README.md#no-such-heading), [c](#title), [d](#nope),',
      '[e, wrapped',
      'over a line](../../outside.md) and [f](https://example.com/x.md#y).',
      '',
      '`[g](inline-code.md)` is code.',
      '',
      '```',
      '[h](fenced.md)',
      '```',
      '',
      '[ref]: docs/also-missing.md',
    ].join('\n');
    const problems = brokenLinks(new Map([['docs/zz-example.md', page]]), repoRoot);
    expect(problems).to.deep.equal([
      'docs/zz-example.md:3: missing.md: docs/missing.md does not exist',
      'docs/zz-example.md:3: README.md#no-such-heading: docs/README.md does not exist',
      'docs/zz-example.md:3: #nope: docs/zz-example.md has no heading #nope',
      'docs/zz-example.md:4: ../../outside.md points outside the repository',
      'docs/zz-example.md:13: docs/also-missing.md: docs/docs/also-missing.md does not exist',
    ]);
  });
});
