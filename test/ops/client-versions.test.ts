/**
 * One tested version per coding-agent CLI: the one `npm run clients` pins (scripts/client-versions.ts).
 * Every page that names a CLI with a version names that one.
 */
import { expect } from 'chai';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pinnedClients } from '../../scripts/client-versions.ts';
import { repoRoot } from '../support/process.ts';

/** How the pages name each CLI before its version, and its npm package. */
const names: ReadonlyArray<readonly [pkg: string, pattern: RegExp]> = [
  ['@anthropic-ai/claude-code', /Claude\s+Code\s+(\d+\.\d+\.\d+)/g],
  ['@openai/codex', /(?:codex-cli|Codex\s+CLI|Codex)\s+(\d+\.\d+\.\d+)/g],
  ['opencode-ai', /opencode\s+(\d+\.\d+\.\d+)/g],
  ['@google/gemini-cli', /Gemini\s+CLI\s+(\d+\.\d+\.\d+)/g],
];

const pages = ['README.md', ...readdirSync(join(repoRoot, 'docs')).filter((file) => file.endsWith('.md')).map((file) => `docs/${file}`)];

describe('the tested versions of the coding-agent CLIs', function () {
  for (const [pkg, pattern] of names) {
    it(`${pkg}: every page names ${pinnedClients[pkg]}, the version npm run clients pins`, function () {
      const found: string[] = [];
      for (const page of pages) {
        const text = readFileSync(join(repoRoot, page), 'utf8');
        for (const match of text.matchAll(pattern)) found.push(`${page}: ${match[1]}`);
        for (const match of text.matchAll(new RegExp(`${pkg.replace(/[/@.-]/g, '\\$&')}@(\\d+\\.\\d+\\.\\d+)`, 'g'))) found.push(`${page}: ${match[1]}`);
      }
      expect(found.length, `no page names a version of ${pkg}`).to.be.above(0);
      expect(found.filter((entry) => !entry.endsWith(`: ${pinnedClients[pkg]}`))).to.deep.equal([]);
    });
  }
});
