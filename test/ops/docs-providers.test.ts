/**
 * The provider facts the documentation repeats say what the plugins say, so that a newcomer
 * who follows the README or docs/keys.md sends the right header and finds the right page for a
 * key. The tables are written by `npm run docs` from the plugins; a row that says something
 * else than its plugin (a changed tier, a renamed header) or names no plugin fails here. A
 * plugin without a row yet (a folder just added) passes, so that one folder is all it takes.
 */
import { expect } from 'chai';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import type { ProviderPlugin } from '../../providers/types.ts';
import { generatedRows, keylessLine, keysRow, keysTable, readmeRow, readmeTable } from '../../scripts/providers-doc.ts';
import { providerPlugins } from '../support/plugins.ts';
import { repoRoot } from '../support/process.ts';

const plugins = await providerPlugins();

/** Whether git tracks a plugin's folder; every folder counts as tracked outside a git checkout. */
function trackedPluginIds(): (id: string) => boolean {
  try {
    const files = execFileSync('git', ['ls-files', 'providers'], { cwd: repoRoot, encoding: 'utf8' }).split('\n');
    const ids = new Set(files.map((file) => file.split('/')[1]).filter((id): id is string => id !== undefined));
    return (id) => ids.has(id);
  } catch {
    return () => true;
  }
}

/** The plugins a table's rows name (by header), and the rows that name none. */
function named(rows: readonly string[]): { found: ProviderPlugin[]; strangers: string[] } {
  const found: ProviderPlugin[] = [];
  const strangers: string[] = [];
  for (const row of rows) {
    const plugin = plugins.find((candidate) => row.includes(` \`${candidate.header}\` `));
    if (plugin) found.push(plugin);
    else strangers.push(row);
  }
  return { found, strangers };
}

describe('the providers in the documentation', function () {
  for (const [page, which, table, row] of [
    ['README.md', 'readme', readmeTable, readmeRow],
    ['docs/keys.md', 'keys', keysTable, keysRow],
  ] as const) {
    it(`${page}: each row is what \`npm run docs\` writes for its plugin, in the order aliases try them`, function () {
      const rows = generatedRows(readFileSync(`${repoRoot}/${page}`, 'utf8'), which);
      const { found, strangers } = named(rows);
      expect(strangers, 'rows that name no plugin (run npm run docs)').to.deep.equal([]);
      for (const plugin of found) expect(rows, plugin.id).to.include(row(plugin));
      // The table for the plugins it names, as the generator orders and words it.
      expect(rows.join('\n')).to.equal(table(found).split('\n').slice(2).join('\n'));
    });
  }

  it("README.md's first request names every keyless provider and what it does with prompts, as the plugins say", function () {
    const readme = readFileSync(`${repoRoot}/README.md`, 'utf8');
    expect(readme).to.include(keylessLine(plugins));
    expect(readme).to.include("-H 'X-Freeway-Keyless: on'");
    for (const plugin of plugins.filter((candidate) => candidate.anonymous)) expect(keylessLine(plugins)).to.include(plugin.anonymous?.privacy as string);
  });

  it('names every plugin that git tracks (a folder not yet committed is written by npm run docs)', function () {
    const readme = named(generatedRows(readFileSync(`${repoRoot}/README.md`, 'utf8'), 'readme')).found.map((plugin) => plugin.id);
    const keys = named(generatedRows(readFileSync(`${repoRoot}/docs/keys.md`, 'utf8'), 'keys')).found.map((plugin) => plugin.id);
    const tracked = trackedPluginIds();
    const missing = plugins.filter((plugin) => tracked(plugin.id) && (!readme.includes(plugin.id) || !keys.includes(plugin.id))).map((plugin) => plugin.id);
    expect(missing, 'committed plugins without a row: run npm run docs').to.deep.equal([]);
  });
});
