/**
 * The provider facts the documentation repeats say what the plugins say, so that a newcomer
 * who follows docs/keys.md sends the right header and finds the right page for a key. Derived
 * from the discovered plugins, never from a list.
 */
import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { providerPlugins } from '../support/plugins.ts';
import { repoRoot } from '../support/process.ts';

const plugins = await providerPlugins();

describe('the providers in the documentation', function () {
  it("docs/keys.md's table gives each plugin's header, base URL, its override and where to get a key", function () {
    const keys = readFileSync(join(repoRoot, 'docs/keys.md'), 'utf8');
    for (const plugin of plugins) {
      const row = `| ${plugin.name} | \`${plugin.header}\` | \`${plugin.baseURL}\` (\`${plugin.id.toUpperCase()}_BASE_URL\`) | ${plugin.keyUrl} |`;
      expect(keys, plugin.id).to.include(row);
    }
    const rows = keys.split('\n').filter((line) => /^\| [^|]+ \| `X-[A-Za-z0-9]+-Key` \|/.test(line));
    expect(rows, 'a row for a provider that has no plugin').to.have.length(plugins.length);
  });
});
