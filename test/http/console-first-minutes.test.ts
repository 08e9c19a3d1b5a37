import { expect } from 'chai';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import type { Page } from 'playwright-core';
import type { ProviderPlugin } from '../../providers/types.ts';
import { keyFor } from '../support/checkable.ts';
import { axeViolations, benchPlugins, chromiumPath, defaultChat, noChromium, shoot, sizes, startConsoleBench, variantOf, type ConsoleBench } from '../support/console-browser.ts';
import { openAIError, openAIText, type SeenRequest } from '../support/upstream.ts';

/*
 * The first ten minutes of a person with the console, by labels and roles as they use the page:
 * where to start, pasting a key, pointing a client at Freeway, a conversation, usage, a key that
 * breaks, and the page by keyboard and screen reader at a phone's and a desktop's size.
 */

const FREE_TIERS: readonly string[] = ['free', 'free with limits'];

const run = promisify(execFile);

/** The text of an OpenAI message's content, a string or text parts. */
function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) return content.map((part: { text?: string }) => part.text ?? '').join('');
  return '';
}

describe('the console: the first ten minutes', function () {
  this.timeout(40_000);
  let bench: ConsoleBench;

  before(async function () {
    this.timeout(60_000);
    if (!chromiumPath) {
      process.stdout.write(`      skipping the browser tests: ${noChromium}\n`);
      this.skip();
    }
    bench = await startConsoleBench(await benchPlugins(), ['clipboard-read', 'clipboard-write']);
  });
  after(async function () {
    await bench?.close();
  });
  beforeEach(function () {
    if (bench) bench.chat = defaultChat;
  });

  const chatsWith = (key: string) => (request: SeenRequest) => request.path.endsWith('/chat/completions') && request.headers.authorization === `Bearer ${key}`;

  async function send(page: Page, message: string, answers: number): Promise<void> {
    await page.getByLabel('Message').fill(message);
    await page.getByRole('button', { name: 'Send' }).click();
    await page.locator('.turn-meta').nth(answers - 1).waitFor();
  }

  describe('a person with one Groq key', function () {
    // Its own key: its health and usage are this scenario's alone.
    const key = variantOf(keyFor('groq', 'good'), 1);
    let page: Page;
    before(async function () {
      page = await bench.open();
    });
    after(async function () {
      await page?.close();
    });

    it('pastes the key and sees it checked, with its models', async function () {
      await page.getByLabel('Groq key').fill(key);
      await page.getByRole('button', { name: 'Check keys' }).click();
      await page.locator('#key-groq-state').getByText(/^Key 1: healthy · \d+ models · free:auto/).waitFor();
      expect(await page.locator('#keys-status').textContent()).to.equal('Checked 1 key.');
      const picker = page.getByLabel('Model', { exact: true });
      await picker.locator('optgroup[label^="Groq"] option').first().waitFor({ state: 'attached' });
      const options = await picker.locator('optgroup[label^="Groq"] option').allTextContents();
      expect(options.length).to.be.above(0);
      for (const option of options) expect(option).to.match(/^groq\/\S+ · free with limits/);
      expect(await page.locator('#models-status').textContent()).to.match(/^\d+ models?\.$/);
    });

    it('copies a working set-up for Claude Code: the key header as a variable, the key itself only when asked', async function () {
      await page.getByRole('link', { name: 'Connect' }).click();
      await page.getByLabel('Client').selectOption({ label: 'Claude Code' });
      const setup = page.getByRole('region', { name: 'Set-up' });
      const origin = bench.freeway.url;
      expect(await setup.textContent()).to.equal(
        [
          `export ANTHROPIC_BASE_URL=${origin}`,
          'export ANTHROPIC_AUTH_TOKEN=unused      # Claude Code wants one; Freeway ignores it',
          'export ANTHROPIC_CUSTOM_HEADERS="X-Groq-Key: $GROQ_API_KEY"',
          'claude',
        ].join('\n'),
      );
      expect(await page.locator('#setup-note').textContent()).to.include('Set GROQ_API_KEY to your key first');
      await page.getByRole('button', { name: 'Copy set-up' }).click();
      await page.locator('#connect-status').getByText('Copied.').waitFor();
      const copied = (await page.evaluate('navigator.clipboard.readText()')) as string;
      expect(copied).to.equal(await setup.textContent());
      expect(copied).to.not.include(key);
      // Working: the shell lines, with GROQ_API_KEY set, give Claude Code what Freeway needs.
      const shell = copied.replace(/\nclaude$/, '\nprintf "%s\\n%s" "$ANTHROPIC_BASE_URL" "$ANTHROPIC_CUSTOM_HEADERS"');
      const { stdout } = await run('bash', ['-c', shell], { env: { PATH: process.env.PATH ?? '', GROQ_API_KEY: key } });
      const [baseURL = '', header = ''] = stdout.split('\n');
      const [name = '', value = ''] = header.split(': ');
      const answer = await fetch(`${baseURL}/v1/messages`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': 'unused', 'anthropic-version': '2023-06-01', [name]: value },
        body: JSON.stringify({ model: 'claude-sonnet-4-6', max_tokens: 64, messages: [{ role: 'user', content: 'Hello' }] }),
      });
      expect(answer.status, await answer.clone().text()).to.equal(200);
      expect(answer.headers.get('x-freeway-provider')).to.equal('groq');
      await page.getByLabel('Put my keys in the set-ups').check();
      expect(await setup.textContent()).to.include(`export ANTHROPIC_CUSTOM_HEADERS="X-Groq-Key: ${key}"`);
      await page.getByLabel('Put my keys in the set-ups').uncheck();
    });

    it('holds a three-turn conversation with a system prompt: every turn and the system prompt reach the provider', async function () {
      const answers = ['First answer.', 'Second answer.', 'Third answer.'];
      let turn = 0;
      bench.chat = (req, res) => openAIText(res, answers[turn++] ?? 'More.', req);
      await page.getByRole('link', { name: 'Playground' }).click();
      await page.getByLabel('System prompt').fill('You answer in three words.');
      await send(page, 'One', 1);
      await send(page, 'Two', 2);
      await send(page, 'Three', 3);
      expect(await page.getByRole('log').locator('.turn-text').allTextContents()).to.deep.equal(['One', 'First answer.', 'Two', 'Second answer.', 'Three', 'Third answer.']);
      const last = bench.upstream.requests.filter(chatsWith(key)).at(-1);
      const messages = (last?.body?.messages ?? []) as Array<{ role: string; content: unknown }>;
      expect(messages.map((message) => [message.role, textOf(message.content)])).to.deep.equal([
        ['system', 'You answer in three words.'],
        ['user', 'One'],
        ['assistant', 'First answer.'],
        ['user', 'Two'],
        ['assistant', 'Second answer.'],
        ['user', 'Three'],
      ]);
      await shoot(page, 'playground', 'conversation');
    });

    it('sees that key\'s usage today', async function () {
      await page.getByRole('link', { name: 'Usage' }).click();
      const usage = page.locator('#usage-view');
      await usage.getByRole('heading', { name: 'Groq, key 1' }).waitFor();
      // The three turns, and the Messages request that tried Claude Code's set-up.
      expect(await usage.locator('.usage-summary').first().textContent()).to.match(/^Today: 4 requests, 4 answered, 0 failed;/);
      expect(await usage.getByRole('img').first().getAttribute('aria-label')).to.match(/today 4 \(4 answered, 0 failed\)$/);
      const row = usage.locator('tbody tr').first();
      expect(await row.locator('th').textContent()).to.match(/^groq\//);
      await shoot(page, 'usage');
    });

    it('breaks the key (the provider answers 401) and its card says what to do', async function () {
      bench.chat = (_req, res) => openAIError(res, 401, 'Invalid API Key');
      await page.getByLabel('Message').fill('Four');
      await page.getByRole('button', { name: 'Send' }).click();
      await page.getByRole('alert').getByText(/401/).waitFor();
      // Health and the card are read again after the request: no button to press.
      await page.locator('#key-groq-state').getByText('Key 1: the provider refused this key (401): replace it').waitFor();
      expect(await page.locator('#key-groq-state').textContent()).to.include('It said: 401 Invalid API Key');
      const health = page.locator('#health-table');
      await health.getByText('the provider refused this key (401): replace it').waitFor();
      expect(await health.textContent()).to.not.include('healthy');
      expect(await page.locator('#health-status').textContent()).to.equal('1 key shown.');
      await shoot(page, 'keys', 'keys-broken');
    });
  });

  describe('where to start', function () {
    it('"start here" names the free providers whose sign-up asks for no card, linking to where they give keys', async function () {
      const page = await bench.open();
      const plugins = bench.plugins;
      // As the plugins declare them, in the order aliases try them.
      const noCard = plugins.filter((plugin) => FREE_TIERS.includes(plugin.tier.tier) && plugin.signUp?.cardRequired === false);
      expect(noCard.length, 'free providers whose sign-up asks for no card').to.be.greaterThan(1);
      const names = noCard.map((plugin) => `${plugin.name} (opens the provider's site)`);
      const listed = `${names.slice(0, -1).join(', ')} and ${names.at(-1)}`;
      const line = page.locator('#start-here');
      expect(await line.textContent()).to.equal(`Start here: ${listed} give free keys without a card. Get one, paste it below, and press Check keys.`);
      for (const plugin of noCard) expect(await line.getByRole('link', { name: new RegExp(`^${plugin.name}`) }).getAttribute('href')).to.equal(plugin.keyUrl);
      expect(await page.locator('#key-groq-card').textContent()).to.include('no card needed');
      const carded = plugins.find((plugin) => plugin.signUp?.cardRequired === true) as ProviderPlugin;
      expect(await page.locator(`#key-${carded.id}-card`).textContent()).to.include('sign-up asks for a card');
      // Paid keys and credits wait behind a disclosure.
      const paid = plugins.find((plugin) => plugin.tier.tier === 'paid only' && !plugin.anonymous) as ProviderPlugin;
      expect(await page.getByLabel(`${paid.name} key`).isVisible()).to.equal(false);
      await page.getByText(/^Providers with paid or trial keys/).click();
      expect(await page.getByLabel(`${paid.name} key`).isVisible()).to.equal(true);
      await page.close();
    });

    it('each field shows how its keys look, and says when a key does not look like one', async function () {
      const page = await bench.open();
      expect(await page.getByLabel('Groq key').getAttribute('placeholder')).to.equal('gsk_…');
      expect(await page.getByLabel('Cloudflare key').getAttribute('placeholder')).to.equal('account_id:api_token');
      expect(await page.locator('#key-groq-hint').textContent()).to.equal('Format: gsk_…');
      await page.getByLabel('Groq key').fill(keyFor('google', 'good'));
      expect(await page.locator('#key-groq-hint').textContent()).to.equal('Groq keys start with gsk_: is this the right field?');
      await page.close();
    });

    it('every provider\'s field says how its keys look, or that any value is accepted', async function () {
      const page = await bench.open();
      await page.getByText(/^Providers with paid or trial keys/).click();
      for (const plugin of bench.plugins) {
        const field = page.getByLabel(`${plugin.name} key`, { exact: true });
        expect(await field.getAttribute('placeholder'), plugin.id).to.be.a('string').and.not.equal('');
        expect(await page.locator(`#key-${plugin.id}-hint`).textContent(), plugin.id).to.match(/^Format: \S/);
      }
      expect(await page.locator('#key-zai-hint').textContent()).to.equal('Format: 32 hex digits, a dot, 16 letters and digits');
      const undocumented = bench.plugins.find((plugin) => plugin.keyPatterns.length === 0 && plugin.keyHint === undefined) as ProviderPlugin;
      expect(await page.locator(`#key-${undocumented.id}-hint`).textContent()).to.equal('Format: not documented by the provider: any value is accepted.');
      await page.close();
    });

    it('a card\'s model count is the number of rows the Models view shows for its key', async function () {
      const page = await bench.open();
      await page.getByLabel('Groq key').fill(variantOf(keyFor('groq', 'good'), 5));
      await page.locator('#models-status').getByText(/^\d+ models?\.$/).waitFor();
      const rows = (await page.locator('#models-table tbody tr').allTextContents()).length;
      expect(await page.locator('#key-groq-count').textContent()).to.equal(`${rows} chat model${rows === 1 ? '' : 's'}`);
      await page.close();
    });

    it('"try without a key" puts `anonymous` in the field of a provider that allows calls without one, and says what that means', async function () {
      const page = await bench.open();
      const anonymous = bench.plugins.find((plugin) => plugin.anonymous) as ProviderPlugin & { anonymous: NonNullable<ProviderPlugin['anonymous']> };
      const card = page.locator(`#key-${anonymous.id}-card`);
      expect(await card.textContent()).to.include(`Without a key: ${anonymous.anonymous.limits}. ${anonymous.anonymous.privacy}`);
      expect(await page.locator('#key-groq-card').getByRole('button', { name: /Try without a key/ }).count()).to.equal(0);
      await card.getByRole('button', { name: `Try without a key (${anonymous.name})` }).click();
      expect(await page.getByLabel(`${anonymous.name} key`).inputValue()).to.equal('anonymous');
      // `anonymous` is no secret: the set-ups write it out.
      await page.getByLabel('Client').selectOption({ label: 'curl' });
      expect(await page.getByRole('region', { name: 'Set-up' }).textContent()).to.include(`-H '${anonymous.header}: anonymous'`);
      await page.close();
    });
  });

  describe('a person with no key at all', function () {
    it('"Try without a key" lists each keyless provider\'s privacy note, answers in the playground, and goes into the set-ups', async function () {
      const page = await bench.open();
      const keyless = bench.plugins.filter((plugin) => plugin.anonymous);
      expect(keyless.length).to.be.at.least(2);
      const notes = page.getByRole('list', { name: 'What the keyless providers do with prompts' });
      for (const plugin of keyless) await notes.getByText(`${plugin.name}: ${plugin.anonymous?.privacy}. Limits: ${plugin.anonymous?.limits}.`).waitFor();
      const before = bench.upstream.requests.length;
      await page.getByRole('checkbox', { name: 'Try without a key' }).check();
      // The models view follows: what keyless calls reach, without pressing Load models.
      await page.locator('#models-status').getByText(/^\d+ models?\.$/).waitFor();
      const rows = await page.locator('#models-table tbody tr').allTextContents();
      expect(rows.length).to.be.above(0);
      for (const row of rows) expect(keyless.some((plugin) => row.startsWith(`${plugin.id}/`)), row).to.equal(true);
      await send(page, 'Say hello', 1);
      expect(await page.locator('.turn-assistant .turn-text').last().textContent()).to.equal('Hello there friend');
      const chats = bench.upstream.requests.slice(before).filter((request) => request.path.endsWith('/chat/completions'));
      expect(chats.length).to.be.above(0);
      for (const chat of chats) {
        expect(keyless.map((plugin) => plugin.id)).to.include(chat.path.split('/')[1]);
        expect(chat.headers.authorization).to.equal(undefined);
      }
      await page.getByLabel('Client').selectOption({ label: 'curl' });
      expect(await page.getByRole('region', { name: 'Set-up' }).textContent()).to.include("-H 'X-Freeway-Keyless: on'");
      await page.getByLabel('Client').selectOption({ label: 'Claude Code' });
      expect(await page.getByRole('region', { name: 'Set-up' }).textContent()).to.include('export ANTHROPIC_CUSTOM_HEADERS="X-Freeway-Keyless: on"');
      await shoot(page, 'keys', 'keys-keyless');
      // Still on after a reload of the tab; off again with Forget keys.
      await page.reload();
      await page.getByRole('checkbox', { name: 'Try without a key' }).waitFor();
      expect(await page.getByRole('checkbox', { name: 'Try without a key' }).isChecked()).to.equal(true);
      await page.getByRole('button', { name: 'Forget keys' }).click();
      expect(await page.getByRole('checkbox', { name: 'Try without a key' }).isChecked()).to.equal(false);
      await page.close();
    });

    it('a key typed into its field changes the models view, with no button pressed', async function () {
      const page = await bench.open();
      await page.getByLabel('Groq key').fill(variantOf(keyFor('groq', 'good'), 4));
      await page.locator('#models-status').getByText(/^\d+ models?\.$/).waitFor();
      const rows = await page.locator('#models-table tbody tr').allTextContents();
      expect(rows.length).to.be.above(0);
      for (const row of rows) expect(row).to.match(/^groq\//);
      await page.getByLabel('Groq key').fill('');
      await page.locator('#models-status').getByText('Enter a key (or tick Try without a key) to see the models it can use.').waitFor();
      await page.close();
    });
  });

  describe('keys', function () {
    it('a malformed key is flagged in its own card with the server\'s message; the other keys are still checked and used', async function () {
      const page = await bench.open();
      const groq = variantOf(keyFor('groq', 'good'), 2);
      await page.getByLabel('Groq key').fill(groq);
      await page.getByLabel('Cloudflare key').fill('cfut_0123456789abcdefghijkl');
      // A character no header can carry: the browser would refuse to send it, so the page says it as the server would.
      await page.getByLabel('Z.AI key').fill('clé-0123456789');
      await page.getByRole('button', { name: 'Check keys' }).click();
      await page.locator('#key-cloudflare-state').getByText('Not checked: this field cannot be sent as it is. X-Cloudflare-Key must have the form account_id:api_token.').waitFor();
      expect(await page.locator('#key-zai-state').textContent()).to.equal('Not checked: this field cannot be sent as it is. X-Zai-Key must contain only printable ASCII characters.');
      expect(await page.getByLabel('Cloudflare key').getAttribute('aria-invalid')).to.equal('true');
      await page.locator('#key-groq-state').getByText(/^Key 1: healthy/).waitFor();
      expect(await page.locator('#keys-status').textContent()).to.equal('Checked 1 key. Z.AI and Cloudflare: their fields cannot be sent as they are (see the cards).');
      // The playground leaves the refused header out, so the request is not a 400.
      await send(page, 'Say hello', 1);
      expect(await page.locator('.turn-assistant .turn-text').last().textContent()).to.equal('Hello there friend');
      await shoot(page, 'keys', 'keys-malformed');
      await page.close();
    });

    it('each state in words with what to do: rate-limited until a local time, no credit left', async function () {
      const page = await bench.open();
      await page.getByText(/^Providers with paid or trial keys/).click();
      await page.getByLabel('Google key').fill(keyFor('google', 'busy'));
      await page.getByLabel('OpenRouter key').fill(keyFor('openrouter', 'no_credit'));
      const before = Date.now();
      await page.getByRole('button', { name: 'Check keys' }).click();
      const busy = page.locator('#key-google-state');
      await busy.getByText(/^Key 1: rate-limited until /).waitFor();
      // Google's RetryInfo asks for 43 s: the time shown is the browser's local time then.
      const until = await page.evaluate(`[${before + 43_000}, ${Date.now() + 43_000}].map((at) => new Date(at).toLocaleTimeString([], { hour: '2-digit', minute: '2-digit' }))`) as string[];
      const shown = (await busy.locator('.state').textContent()) ?? '';
      expect(until.map((time) => `Key 1: rate-limited until ${time}: Freeway uses your other keys until then`)).to.include(shown);
      await page.locator('#key-openrouter-state').getByText('Key 1: no credit left: add credit or remove it').waitFor();
      await page.close();
    });

    it('the health view shows each key\'s own state, and "No keys entered." only when none is', async function () {
      const page = await bench.open();
      expect(await page.locator('#health-status').textContent()).to.equal('No keys entered.');
      await page.getByLabel('Groq key').fill(`${variantOf(keyFor('groq', 'good'), 3)},${keyFor('groq', 'invalid')}`);
      await page.getByRole('button', { name: 'Check keys' }).click();
      const rows = page.locator('#health-table tbody tr');
      await rows.nth(1).getByText('the provider refused this key (401): replace it').waitFor();
      expect(await rows.nth(0).textContent()).to.match(/^Groq1healthy/);
      expect(await page.locator('#health-status').textContent()).to.equal('2 keys shown.');
      await page.close();
    });
  });

  describe('playground', function () {
    for (const [api, label] of [
      ['/v1/responses', 'Responses (OpenAI)'],
      ['/v1/messages', 'Messages (Anthropic)'],
      ['/v1beta/models/free%3Aauto:streamGenerateContent?alt=sse', 'Gemini (Google)'],
    ] as const) {
      it(`streams on ${label}: the answer, its tokens, and the request on ${api}`, async function () {
        const page = await bench.open();
        await page.getByLabel('Groq key').fill(keyFor('groq', 'good'));
        await page.getByLabel('API').selectOption({ label });
        await page.getByLabel('System prompt').fill('Be brief.');
        await send(page, 'Say hello', 1);
        expect(await page.locator('.turn-assistant .turn-text').last().textContent()).to.equal('Hello there friend');
        expect(await page.locator('#meta-usage').textContent()).to.equal('7 in, 3 out, 10 total tokens');
        expect(bench.requested.some((url) => url.endsWith(api))).to.equal(true);
        const sent = bench.upstream.requests.filter((request) => request.path.endsWith('/chat/completions')).at(-1);
        expect((sent?.body?.messages as Array<{ role: string; content: unknown }>).map((message) => [message.role, textOf(message.content)])).to.deep.equal([
          ['system', 'Be brief.'],
          ['user', 'Say hello'],
        ]);
        await page.close();
      });
    }

    it('the model picker offers what the keys can use, each model with its tier, and its quality where the model carries one', async function () {
      const page = await bench.open();
      // Model objects carry `quality` (a number or null) and `quality_source`; put in the answer here
      // so that the picker is tested apart from where the figures come from.
      await page.route('**/v1/models', async (route) => {
        const response = await route.fetch();
        const body = (await response.json()) as { data: Array<Record<string, unknown>> };
        for (const model of body.data) if (model.owned_by === 'groq') Object.assign(model, model.id === 'groq/openai/gpt-oss-120b' ? { quality: 71, quality_source: 'test' } : { quality: null });
        await route.fulfill({ response, json: body });
      });
      await page.getByLabel('Groq key').fill(keyFor('groq', 'good'));
      await page.getByRole('button', { name: 'Check keys' }).click();
      const picker = page.getByLabel('Model', { exact: true });
      // Read again once the keys are checked.
      await picker.locator('option', { hasText: 'quality 71' }).waitFor({ state: 'attached' });
      expect(await picker.locator('option[value="groq/openai/gpt-oss-120b"]').textContent()).to.equal('groq/openai/gpt-oss-120b · free with limits · quality 71');
      expect(await picker.locator('option[value="groq/openai/gpt-oss-20b"]').textContent()).to.equal('groq/openai/gpt-oss-20b · free with limits');
      expect(await picker.locator('optgroup[label="Aliases"] option').first().textContent()).to.equal('free:auto');
      // Only the providers with a key: no Google model without a Google key.
      expect(await picker.locator('option[value^="google/"]').count()).to.equal(0);
      expect(await page.locator('#models-table tbody tr').first().locator('td').last().textContent()).to.equal('71');
      await page.close();
    });

    it('temperature and the output budget reach the provider', async function () {
      const page = await bench.open();
      await page.getByLabel('Groq key').fill(keyFor('groq', 'good'));
      await page.getByLabel('Temperature').fill('0.3');
      await page.getByLabel('Output budget').fill('50');
      await send(page, 'Say hello', 1);
      const sent = bench.upstream.requests.filter((request) => request.path.endsWith('/chat/completions')).at(-1);
      expect(sent?.body?.temperature).to.equal(0.3);
      expect(sent?.body?.max_tokens ?? sent?.body?.max_completion_tokens).to.equal(50);
      await page.close();
    });

    it('"Copy as curl" copies the last request with the key header as a variable, or the key when asked; copying works where the Clipboard API is refused', async function () {
      const page = await bench.context.newPage();
      // A plain-http address elsewhere than localhost has no Clipboard API: the page falls back to the copy command.
      await page.addInitScript(`
        Object.defineProperty(Navigator.prototype, 'clipboard', { get: () => undefined });
        window.copiedByCommand = [];
        const original = document.execCommand.bind(document);
        document.execCommand = (command, ...rest) => {
          if (command === 'copy') window.copiedByCommand.push(document.activeElement.value);
          return original(command, ...rest);
        };
      `);
      await page.goto(`${bench.freeway.url}/`);
      const key = keyFor('groq', 'good');
      await page.getByLabel('Groq key').fill(key);
      expect(await page.getByRole('button', { name: 'Copy as curl' }).isDisabled()).to.equal(true);
      await send(page, 'Say hello', 1);
      await page.getByRole('button', { name: 'Copy as curl' }).click();
      await page.locator('#curl-status').getByText('Copied.').waitFor();
      await page.getByLabel('with my keys').check();
      await page.getByRole('button', { name: 'Copy as curl' }).click();
      const [plain = '', withKey = ''] = (await page.evaluate('window.copiedByCommand')) as string[];
      expect(plain.split('\n').slice(0, 2)).to.deep.equal([`curl -sN '${bench.freeway.url}/v1/chat/completions' -H 'Content-Type: application/json' \\`, '  -H "X-Groq-Key: $GROQ_API_KEY" \\']);
      expect(plain).to.match(/-d '\{"model":"free:auto","messages":\[\{"role":"user","content":"Say hello"\}\],"stream":true/);
      expect(plain).to.not.include(key);
      expect(withKey).to.include(`  -H 'X-Groq-Key: ${key}' \\`);
      await page.close();
    });
  });

  describe('usage', function () {
    it('"No usage yet" until the server reports any; then per key and model, today and seven days, a chart drawn within the page\'s policy', async function () {
      const page = await bench.open();
      const violations: string[] = [];
      page.on('console', (message) => {
        if (/Content Security Policy/i.test(message.text())) violations.push(message.text());
      });
      // A key of its own, which no other test has used: the server has no usage for it yet.
      await page.getByLabel('Groq key').fill(variantOf(keyFor('groq', 'good'), 4));
      await page.getByRole('button', { name: 'Check keys' }).click();
      await page.locator('#key-groq-state').getByText(/^Key 1:/).waitFor();
      // The server counts usage, and has none for this key.
      await page.locator('#usage-view').getByRole('heading', { name: 'Groq, key 1' }).waitFor();
      expect(await page.locator('#usage-view .usage-key').textContent()).to.equal('Groq, key 1No usage yet.');
      // The shape GET /v1/providers gives each key entry (docs/console.md), put in the answer here
      // so that the view is tested apart from the server's counting.
      const day = (ago: number) => new Date(Date.now() - ago * 86_400_000).toISOString().slice(0, 10);
      const usage = {
        days: [
          { day: day(0), models: [
            { model: 'groq/openai/gpt-oss-120b', requests: 3, answers: 2, failures: { rate_limited: 1 }, inputTokens: 1200, outputTokens: 300 },
            { model: 'groq/llama-3.1-8b-instant', requests: 1, answers: 1, failures: {}, inputTokens: 40, outputTokens: 10 },
          ] },
          { day: day(2), models: [{ model: 'groq/openai/gpt-oss-120b', requests: 5, answers: 5, failures: {}, inputTokens: 2000, outputTokens: 700 }] },
        ],
      };
      await page.route('**/v1/providers*', async (route) => {
        const response = await route.fetch();
        const body = (await response.json()) as { data: Array<{ id: string; keys?: Array<Record<string, unknown>> }> };
        for (const entry of body.data.find((provider) => provider.id === 'groq')?.keys ?? []) entry.usage = usage;
        await route.fulfill({ response, json: body });
      });
      await page.getByRole('button', { name: 'Refresh health' }).click();
      const view = page.locator('#usage-view');
      await view.getByRole('heading', { name: 'Groq, key 1' }).waitFor();
      expect(await view.locator('.usage-summary').textContent()).to.equal('Today: 4 requests, 3 answered, 1 failed; 1,240 tokens in, 310 out. Seven days: 9 requests, 3,240 tokens in, 1,010 out.');
      const chart = view.getByRole('img');
      expect(await chart.getAttribute('aria-label')).to.match(/^Requests per day, last seven days, Groq, key 1: .+; today 4 \(3 answered, 1 failed\)$/);
      expect(await chart.locator('g.chart-day').count()).to.equal(7);
      expect(await chart.locator('rect.bar-failures').last().getAttribute('height')).to.not.equal('0');
      const rows = await view.locator('tbody tr').evaluateAll((trs) => trs.map((tr) => [...tr.children].map((cell) => cell.textContent)));
      expect(rows).to.deep.equal([
        ['groq/openai/gpt-oss-120b', '3', '2', '1 (rate limited 1)', '1,200', '300', '8', '3,200', '1,000'],
        ['groq/llama-3.1-8b-instant', '1', '1', '0', '40', '10', '1', '40', '10'],
      ]);
      expect(await page.locator('[style]').count(), 'no inline style anywhere').to.equal(0);
      expect(violations).to.deep.equal([]);
      expect(await axeViolations(page)).to.deep.equal([]);
      await shoot(page, 'usage', 'usage-drawn');
      await page.close();
    });
  });

  describe('by keyboard and screen reader', function () {
    for (const [size, viewport] of Object.entries(sizes)) {
      it(`axe-core finds no violation at a ${size}'s size, keys checked and a conversation held`, async function () {
        const page = await bench.open();
        await page.setViewportSize(viewport);
        await page.getByLabel('Groq key').fill(keyFor('groq', 'good'));
        await page.getByLabel('Cloudflare key').fill('cfut_0123456789abcdefghijkl');
        await page.getByRole('button', { name: 'Check keys' }).click();
        await page.locator('#key-cloudflare-state').getByText(/^Not checked/).waitFor();
        await send(page, 'Say hello', 1);
        await page.getByText(/^Providers with paid or trial keys/).click();
        expect(await axeViolations(page)).to.deep.equal([]);
        await page.close();
      });
    }

    it('every control can be reached by Tab, in the order of the page', async function () {
      const page = await bench.open();
      const reached: string[] = [];
      for (let i = 0; i < 80; i++) {
        await page.keyboard.press('Tab');
        reached.push((await page.evaluate('document.activeElement.id || document.activeElement.textContent.trim()')) as string);
      }
      const order = ['key-groq', 'check-keys', 'client', 'copy-setup', 'client-api', 'model', 'system-prompt', 'message', 'send'];
      const positions = order.map((id) => reached.indexOf(id));
      expect(positions, reached.join(', ')).to.not.include(-1);
      expect([...positions].sort((a, b) => a - b)).to.deep.equal(positions);
      await page.close();
    });
  });
});
