import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { ProviderPlugin } from './types.ts';

const providersDir = fileURLToPath(new URL('.', import.meta.url));
// Run from source, plugins are .ts files; from the build in dist/, .js.
const extension = import.meta.url.endsWith('.ts') ? '.ts' : '.js';

/**
 * Finds every `providers/<id>/index.ts` and returns their default exports,
 * sorted by id so that start-up order never depends on the file system.
 * Runs once at start-up; nothing here is on the request path.
 */
export async function loadProviderPlugins(dir: string = providersDir): Promise<ProviderPlugin[]> {
  const entries = await readdir(dir, { withFileTypes: true });
  const folders = entries.filter((entry) => entry.isDirectory()).map((entry) => entry.name).sort();
  const plugins: ProviderPlugin[] = [];
  for (const folder of folders) {
    const file = `index${extension}`;
    const module: { default?: ProviderPlugin } = await import(pathToFileURL(join(dir, folder, file)).href);
    if (!module.default) throw new Error(`providers/${folder}/${file} has no default export`);
    if (module.default.id !== folder) {
      throw new Error(`providers/${folder}/${file} declares id "${module.default.id}"; the id must equal the folder name`);
    }
    plugins.push(module.default);
  }
  return plugins;
}
