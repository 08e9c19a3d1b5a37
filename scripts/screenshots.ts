/**
 * The console's screenshots in the docs, made from the page as it is:
 *
 *   npm run screenshots      # writes docs/console-desktop.png and docs/console-phone.png
 *
 * Starts Freeway and a fake provider on 127.0.0.1 (no request leaves the machine, and the keys are
 * the fixtures' made-up ones), drives Debian's chromium (playwright-core) to a representative state
 * (a Groq and a Google key checked, a malformed Cloudflare key flagged in its card, Claude Code's
 * set-up, a two-turn conversation with a system prompt), and takes a full-page screenshot at a
 * desktop's size and at a phone's.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type Page } from 'playwright-core';
import { checkablePlugins, keyCheckAnswers, keyFor } from '../test/support/checkable.ts';
import { chromiumPath, noChromium, sizes } from '../test/support/console-browser.ts';
import { startFreeway } from '../test/support/freeway.ts';
import { geminiSSE, openAIText, startUpstream } from '../test/support/upstream.ts';

const root = fileURLToPath(new URL('../', import.meta.url));
/** A Cloudflare key without its account id: the server refuses the header, and the card says why. */
const MALFORMED_CLOUDFLARE_KEY = 'cfut_0123456789abcdefghijklmnop';
/** The whole run, so that a stuck browser cannot hold the script forever. */
const DEADLINE_MS = 120_000;

const answers = ['Hello! Nice to meet you today.', 'Freeway picked a free model that answered first.'];

async function drive(page: Page, url: string): Promise<void> {
  await page.goto(url);
  await page.getByLabel('Groq key').waitFor();
  await page.getByLabel('Groq key').fill(keyFor('groq', 'good'));
  await page.getByLabel('Google key').fill(keyFor('google', 'good'));
  await page.getByLabel('Cloudflare key').fill(MALFORMED_CLOUDFLARE_KEY);
  await page.getByRole('button', { name: 'Check keys' }).click();
  await page.locator('#keys-status').getByText(/^Checked 2 keys\./).waitFor();
  await page.getByLabel('Client').selectOption({ label: 'Claude Code' });
  await page.getByLabel('System prompt').fill('Answer in one short sentence.');
  for (const message of ['Say hello', 'Which model answered?']) {
    await page.getByLabel('Message').fill(message);
    await page.getByRole('button', { name: 'Send' }).click();
    await page.locator('.turn-meta').nth(message === 'Say hello' ? 0 : 1).waitFor();
  }
  await page.evaluate('window.scrollTo(0, 0)');
}

async function main(): Promise<void> {
  if (!chromiumPath) throw new Error(noChromium);
  const answer = await keyCheckAnswers();
  let turn = 0;
  const upstream = await startUpstream((req, res) => {
    const [, provider = ''] = req.path.split('/');
    if (req.method === 'POST' && req.path.endsWith('/chat/completions')) return openAIText(res, answers[turn++ % answers.length] as string, req);
    if (req.method === 'POST' && req.path.includes(':streamGenerateContent')) return geminiSSE(res, answers[turn++ % answers.length] as string);
    if (!answer(provider, req, res)) res.writeHead(500).end();
  });
  const plugins = await checkablePlugins();
  const env: Record<string, string> = {};
  for (const plugin of plugins) env[`${plugin.id.toUpperCase()}_BASE_URL`] = `${upstream.url}/${plugin.id}`;
  const freeway = await startFreeway({ plugins, env });
  const profile = await mkdtemp(join(tmpdir(), 'freeway-screenshots-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: chromiumPath,
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    viewport: sizes.desktop,
  });
  try {
    for (const [size, viewport] of Object.entries(sizes)) {
      const page = await context.newPage();
      await page.setViewportSize(viewport);
      await drive(page, `${freeway.url}/`);
      const path = join(root, 'docs', `console-${size}.png`);
      await page.screenshot({ path, fullPage: true });
      console.log(`wrote ${path}`);
      await page.close();
    }
  } finally {
    await context.close();
    await rm(profile, { recursive: true, force: true });
    await freeway.close();
    await upstream.close();
  }
}

const deadline = setTimeout(() => {
  console.error(`screenshots: not done within ${DEADLINE_MS / 1000} s`);
  process.exit(1);
}, DEADLINE_MS);
deadline.unref();
main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(`screenshots: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  },
);
