/**
 * Writes every generated part of the documentation from the code it describes:
 * the error table of docs/errors.md (the error catalogue), the settings table of
 * docs/configuration.md (the settings table), the failover table of
 * docs/routing.md (the failover policy), the endpoint list and request-field
 * tables of docs/apis.md (the route table, the client APIs' body schemas) and the provider tables of README.md and
 * docs/keys.md (the provider plugins). Tests fail when one is stale.
 *
 *   npm run docs
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { withSettingsTable } from '../server/config/describe.ts';
import { errorsDocPath, errorsDocSource } from './errors-doc.ts';
import { loadProviderPlugins } from '../providers/loader.ts';
import { keysDocPath, keysDocSource, readmePath, readmeSource } from './providers-doc.ts';
import { routingDocPath, routingDocSource } from './routing-doc.ts';
import { apisDocPath, apisDocSource } from './apis-doc.ts';
import { requestFieldsDocSource } from './request-fields-doc.ts';

const plugins = await loadProviderPlugins();

const pages: ReadonlyArray<readonly [URL, (page: string) => string]> = [
  [errorsDocPath, errorsDocSource],
  [new URL('../docs/configuration.md', import.meta.url), withSettingsTable],
  [routingDocPath, routingDocSource],
  [apisDocPath, (page) => requestFieldsDocSource(apisDocSource(page))],
  [readmePath, (page) => readmeSource(page, plugins)],
  [keysDocPath, (page) => keysDocSource(page, plugins)],
];

for (const [path, write] of pages) {
  const before = readFileSync(path, 'utf8');
  const after = write(before);
  if (after !== before) writeFileSync(path, after);
  console.log(`${fileURLToPath(path).replace(fileURLToPath(new URL('..', import.meta.url)), '')}: ${after === before ? 'up to date' : 'written'}`);
}
