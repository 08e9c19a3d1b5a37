import { access } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { loadProviderPlugins } from '../../providers/loader.ts';
import type { ProviderFixtures, ProviderPlugin } from '../../providers/types.ts';

/**
 * The folder the tests discover provider plugins in: providers/, or the folder
 * FREEWAY_TEST_PROVIDERS_DIR names (a copy of providers/ with a new provider in
 * it, inside the repository so that its imports resolve).
 */
export const providersDir = process.env.FREEWAY_TEST_PROVIDERS_DIR
  ? resolve(process.env.FREEWAY_TEST_PROVIDERS_DIR)
  : fileURLToPath(new URL('../../providers/', import.meta.url));

let plugins: Promise<ProviderPlugin[]> | undefined;
let fixtures: Promise<Map<string, ProviderFixtures>> | undefined;

/** Every plugin the loader discovers in `providersDir`, loaded once per test process. */
export function providerPlugins(): Promise<ProviderPlugin[]> {
  plugins ??= loadProviderPlugins(providersDir);
  return plugins;
}

/** `providers/<id>/fixtures.ts` of each discovered plugin that has one (the contract test names those that do not). */
export function providerFixtures(): Promise<Map<string, ProviderFixtures>> {
  fixtures ??= (async () => {
    const found = new Map<string, ProviderFixtures>();
    for (const plugin of await providerPlugins()) {
      const file = join(providersDir, plugin.id, 'fixtures.ts');
      try {
        await access(file);
      } catch {
        continue;
      }
      const module: { default?: ProviderFixtures } = await import(pathToFileURL(file).href);
      if (module.default) found.set(plugin.id, module.default);
    }
    return found;
  })();
  return fixtures;
}
