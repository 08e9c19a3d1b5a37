/**
 * Writes the settings table of docs/configuration.md from server/config/settings.ts,
 * the one place settings are declared. test/ops/settings.test.ts fails when it is stale.
 *
 *   npm run docs:config
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { withSettingsTable } from '../server/config/describe.ts';

const path = join(import.meta.dirname, '..', 'docs', 'configuration.md');
const before = readFileSync(path, 'utf8');
const after = withSettingsTable(before);
if (after !== before) writeFileSync(path, after);
process.stdout.write(after === before ? 'docs/configuration.md is up to date\n' : 'docs/configuration.md: settings table written\n');
