import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { buildCatalog } from '../../catalog/catalog.ts';
import type { ProviderPlugin } from '../../providers/types.ts';
import { checkablePlugins, keyCheckAnswers } from './checkable.ts';
import { startFreeway, type RunningFreeway } from './freeway.ts';
import { repoRoot } from './process.ts';
import { geminiSSE, openAIText, startUpstream, type FakeUpstream, type UpstreamHandler } from './upstream.ts';

/*
 * The console in a real browser: Debian's chromium, driven by playwright-core, against Freeway and
 * a fake provider on 127.0.0.1 that answers key checks as each provider documents them and chats
 * with whatever `chat` says.
 */
export const chromiumPath = ['/usr/bin/chromium', '/usr/bin/chromium-browser'].find((path) => existsSync(path));
export const noChromium = 'Debian\'s chromium is not installed (apt-get install chromium; .ci/run installs it)';
export const shots = join(repoRoot, 'test-output', 'console');
export const sizes = { phone: { width: 390, height: 844 }, desktop: { width: 1280, height: 900 } } as const;

export interface ConsoleBench {
  /** The plugins the bench's Freeway runs, in the order the console lists them. */
  readonly plugins: readonly ProviderPlugin[];
  readonly upstream: FakeUpstream;
  readonly freeway: RunningFreeway;
  readonly context: BrowserContext;
  /** Every URL the browser asked for, from every page. */
  readonly requested: string[];
  /** How the fake provider answers chat calls (OpenAI's chat/completions); `openAIText` until changed. */
  chat: UpstreamHandler;
  /** A new tab on the console, once its key fields are there. */
  open(): Promise<Page>;
  close(): Promise<void>;
}

/** The discovered plugins as the key-check tests use them, in the order the console lists them (the order aliases try them). */
export async function benchPlugins(): Promise<ProviderPlugin[]> {
  return [...buildCatalog(await checkablePlugins()).providers];
}

export const defaultChat: UpstreamHandler = (req, res) => openAIText(res, 'Hello there friend', req);

export async function startConsoleBench(plugins: readonly ProviderPlugin[], permissions: string[] = []): Promise<ConsoleBench> {
  const answer = await keyCheckAnswers();
  const requested: string[] = [];
  let upstream: FakeUpstream | undefined;
  let freeway: RunningFreeway | undefined;
  let profile: string | undefined;
  try {
    const bench = {
      chat: defaultChat,
    } as { chat: UpstreamHandler };
    upstream = await startUpstream((req, res) => {
      const [, provider = ''] = req.path.split('/');
      if (req.method === 'POST' && req.path.endsWith('/chat/completions')) return bench.chat(req, res);
      if (req.method === 'POST' && req.path.includes(':streamGenerateContent')) return geminiSSE(res, 'Hello there friend');
      if (!answer(provider, req, res)) res.writeHead(500).end();
    });
    const env: Record<string, string> = {};
    for (const plugin of plugins) env[`${plugin.id.toUpperCase()}_BASE_URL`] = `${upstream.url}/${plugin.id}`;
    freeway = await startFreeway({ plugins, env });
    await mkdir(shots, { recursive: true });
    const profileDir = await mkdtemp(join(tmpdir(), 'freeway-chromium-'));
    profile = profileDir;
    const launch = () =>
      chromium.launchPersistentContext(profileDir, {
        executablePath: chromiumPath,
        headless: true,
        args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
        viewport: sizes.desktop,
        timeout: 20_000,
      });
    // On a loaded machine Chromium's start has once hung past the hook's time: one more try, not a failed suite.
    const context = await launch().catch(() => launch());
    if (permissions.length > 0) await context.grantPermissions(permissions, { origin: freeway.url });
    context.on('request', (request) => requested.push(request.url()));
    const running = { upstream, freeway, profile };
    return Object.assign(bench, {
      plugins: buildCatalog(plugins).providers,
      upstream,
      freeway,
      context,
      requested,
      async open(): Promise<Page> {
        const page = await context.newPage();
        await page.goto(`${running.freeway.url}/`);
        await page.getByLabel('Groq key').waitFor();
        return page;
      },
      async close(): Promise<void> {
        await context.close();
        await rm(running.profile, { recursive: true, force: true });
        await running.freeway.close();
        await running.upstream.close();
      },
    });
  } catch (error) {
    if (profile) await rm(profile, { recursive: true, force: true });
    await freeway?.close();
    await upstream?.close();
    throw error;
  }
}

/** Screenshots of one view (a section of the page) at each size, the view at the top of the window. */
export async function shoot(page: Page, section: string, name = section): Promise<void> {
  for (const [size, viewport] of Object.entries(sizes)) {
    await page.setViewportSize(viewport);
    await page.evaluate(`document.getElementById(${JSON.stringify(section)}).scrollIntoView()`);
    await page.screenshot({ path: join(shots, `${name}-${size}.png`) });
  }
  await page.setViewportSize(sizes.desktop);
}

/** A key of the same format and the same fake-provider behaviour (its last four characters), with its own health record. */
export function variantOf(key: string, n: number): string {
  const at = key.length - 8;
  const replacement = 'ABCDEFGHJKMNPQRSTUVWXYZ'.charAt(n % 23);
  return key.slice(0, at) + replacement + key.slice(at + 1);
}

interface AxeResult {
  violations: Array<{ id: string; impact: string | null; help: string; nodes: Array<{ target: unknown[]; failureSummary?: string }> }>;
}

/** axe-core's violations on the page as it is, one line each: rule, help, and where. */
export async function axeViolations(page: Page): Promise<string[]> {
  const source = await readFile(join(repoRoot, 'node_modules', 'axe-core', 'axe.min.js'), 'utf8');
  // Evaluated through the DevTools protocol, which the page's script-src 'self' does not govern.
  await page.evaluate(source);
  const result = (await page.evaluate('axe.run(document, { resultTypes: ["violations"] })')) as AxeResult;
  return result.violations.map((violation) => `${violation.id} (${violation.impact}): ${violation.help} at ${violation.nodes.map((node) => JSON.stringify(node.target)).join(', ')}`);
}
