import { expect } from 'chai';
import type { Page } from 'playwright-core';
import { faults } from '../support/faults.ts';
import { keyFor } from '../support/checkable.ts';
import { benchPlugins, chromiumPath, defaultChat, noChromium, shoot, startConsoleBench, type ConsoleBench } from '../support/console-browser.ts';

/*
 * The console in a real browser: Debian's chromium, driven by playwright-core,
 * against Freeway and a fake provider on 127.0.0.1. Screenshots of each view, at
 * a phone's and a desktop's size, go to test-output/console/.
 */
describe('the console in a real browser', function () {
  this.timeout(30_000);
  let bench: ConsoleBench;
  const groqGood = keyFor('groq', 'good');
  const groqBad = keyFor('groq', 'invalid');

  before(async function () {
    this.timeout(60_000);
    if (!chromiumPath) {
      process.stdout.write(`      skipping the browser tests: ${noChromium}\n`);
      this.skip();
    }
    bench = await startConsoleBench(await benchPlugins());
  });
  after(async function () {
    await bench?.close();
  });
  beforeEach(function () {
    if (bench) bench.chat = defaultChat;
  });

  const open = (): Promise<Page> => bench.open();
  /** The text of the conversation's last answer. */
  const lastAnswer = (page: Page) => page.locator('.turn-assistant .turn-text').last();

  it('a key entered and checked shows its state and the aliases it unlocks', async function () {
    const page = await open();
    await page.getByLabel('Groq key').fill(groqGood);
    await page.getByRole('button', { name: 'Check keys' }).click();
    const state = page.locator('#key-groq-state');
    await state.getByText(/^Key 1: healthy/).waitFor();
    expect(await state.textContent()).to.match(/Key 1: healthy · \d+ models · free:auto/);
    expect(await page.getByRole('status').first().textContent()).to.equal('Checked 1 key.');
    await shoot(page, 'keys');
    await page.close();
  });

  it('an invalid key says the provider refused it and to replace it, in its card and in the health table', async function () {
    const page = await open();
    await page.getByLabel('Groq key').fill(groqBad);
    await page.getByRole('button', { name: 'Check keys' }).click();
    await page.locator('#key-groq-state').getByText('Key 1: the provider refused this key (401): replace it').waitFor();
    expect(await page.locator('#key-groq-state').textContent()).to.include('It said: 401 Invalid API Key');
    await page.getByRole('link', { name: 'Health' }).click();
    await page.getByRole('button', { name: 'Refresh health' }).click();
    await page.locator('#health-table').getByText('the provider refused this key (401): replace it').waitFor();
    expect(await page.locator('#health-status').textContent()).to.equal('1 key shown.');
    await shoot(page, 'health');
    await page.close();
  });

  it('models: what the keys can use now, filtered by alias and capability', async function () {
    const page = await open();
    await page.getByLabel('Groq key').fill(groqGood);
    await page.getByRole('button', { name: 'Load models' }).click();
    const rows = page.locator('#models-table tbody tr');
    await page.locator('#models-status').getByText(/^\d+ models?\.$/).waitFor();
    const all = await rows.allTextContents();
    expect(all.length).to.be.above(0);
    for (const row of all) expect(row).to.match(/^groq\//);
    await page.getByLabel('Capability').selectOption('vision');
    const vision = await rows.allTextContents();
    expect(vision.length).to.be.below(all.length);
    for (const row of vision) expect(row).to.include('vision');
    await page.getByLabel('Capability').selectOption('');
    await page.getByLabel('Alias').selectOption('free:fast');
    for (const row of await rows.allTextContents()) expect(row).to.include('fast');
    await shoot(page, 'models');
    await page.close();
  });

  it('playground: free:auto streams its answer, with the provider, the attempts, the times and the usage', async function () {
    const page = await open();
    await page.getByLabel('Groq key').fill(groqGood);
    await page.getByLabel('Model', { exact: true }).selectOption('free:auto');
    await page.getByLabel('Message').fill('Say hello');
    // By keyboard: from the message box, Tab reaches Send.
    await page.getByLabel('Message').focus();
    await page.keyboard.press('Tab');
    expect(await page.evaluate('document.activeElement.textContent')).to.equal('Send');
    await page.keyboard.press('Enter');
    await page.locator('#meta-usage').getByText('7 in, 3 out, 10 total tokens').waitFor();
    expect(await lastAnswer(page).textContent()).to.equal('Hello there friend');
    expect(await page.getByRole('log').locator('.turn-user .turn-text').allTextContents()).to.deep.equal(['Say hello']);
    expect(await page.locator('#meta-provider').textContent()).to.equal('groq');
    expect(await page.locator('#meta-model').textContent()).to.match(/^groq\//);
    expect(await page.locator('#meta-attempts').textContent()).to.match(/^groq\/\S+ 200 \d+ms$/);
    expect(await page.locator('#meta-ttft').textContent()).to.match(/^\d+ ms$/);
    expect(await page.locator('#meta-total').textContent()).to.match(/^\d+ ms$/);
    // Each answer carries its own line: provider, model, attempts, times, tokens.
    expect(await page.locator('.turn-meta').last().textContent()).to.match(/^groq · groq\/\S+ · 1 attempt · first token \d+ ms · \d+ ms in all · 7 in, 3 out tokens$/);
    const sent = bench.upstream.requests.find((request) => request.path.endsWith('/chat/completions'));
    expect(sent?.body?.stream).to.equal(true);
    await shoot(page, 'playground');
    await page.close();
  });

  it('a failed request (502) shows Freeway\'s error message, and the message goes back to its box', async function () {
    bench.chat = (_req, res) => {
      res.writeHead(503, { 'content-type': 'application/json' }).end('{"error":{"message":"Service Unavailable","type":"server_error"}}');
    };
    const direct = await fetch(`${bench.freeway.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'X-Groq-Key': groqGood },
      body: JSON.stringify({ model: 'free:auto', messages: [{ role: 'user', content: 'Say hello' }], stream: true }),
    });
    expect(direct.status).to.equal(502);
    const message = ((await direct.json()) as { error: { message: string } }).error.message;
    const page = await open();
    await page.getByLabel('Groq key').fill(groqGood);
    await page.getByLabel('Message').fill('Say hello');
    await page.getByRole('button', { name: 'Send' }).click();
    await page.getByRole('alert').filter({ hasText: message }).waitFor();
    expect(await page.getByRole('alert').textContent()).to.equal(message);
    expect(await page.locator('#meta-attempts').textContent()).to.include('503');
    expect(await page.getByLabel('Message').inputValue()).to.equal('Say hello');
    expect(await page.getByRole('log').locator('li').count()).to.equal(0);
    await shoot(page, 'playground', 'playground-error');
    await page.close();
  });

  it('Stop aborts a stream that is still coming', async function () {
    bench.chat = faults.trickle(10_000, 50);
    const page = await open();
    await page.getByLabel('Groq key').fill(groqGood);
    await page.getByRole('button', { name: 'Send' }).click();
    await page.getByRole('log').getByText(/t2 /).waitFor();
    await page.getByRole('button', { name: 'Stop' }).click();
    await page.getByRole('alert').getByText('Stopped.').waitFor();
    expect(await page.getByRole('button', { name: 'Send' }).isEnabled()).to.equal(true);
    expect(await page.getByRole('button', { name: 'Stop' }).isDisabled()).to.equal(true);
    const shown = await page.getByRole('log').textContent();
    expect(shown).to.not.include('t9999');
    await page.close();
  });

  it('a new tab starts without keys unless "Remember keys on this device" was chosen; "Forget keys" clears both', async function () {
    const first = await open();
    await first.getByLabel('Groq key').fill(groqGood);
    const second = await open();
    expect(await second.getByLabel('Groq key').inputValue()).to.equal('');
    await first.getByLabel('Remember keys on this device').check();
    const third = await open();
    expect(await third.getByLabel('Groq key').inputValue()).to.equal(groqGood);
    expect(await third.getByLabel('Remember keys on this device').isChecked()).to.equal(true);
    await third.getByRole('button', { name: 'Forget keys' }).click();
    expect(await third.getByLabel('Groq key').inputValue()).to.equal('');
    expect(await third.evaluate(() => [localStorage.length, sessionStorage.length])).to.deep.equal([0, 0]);
    const fourth = await open();
    expect(await fourth.getByLabel('Groq key').inputValue()).to.equal('');
    for (const page of [first, second, third, fourth]) await page.close();
  });

  it('no request left for another origin, and no requested URL contains a key', async function () {
    expect(bench.requested.length).to.be.above(10);
    const origin = new URL(bench.freeway.url).origin;
    for (const url of bench.requested) {
      expect(new URL(url).origin, url).to.equal(origin);
      for (const key of [groqGood, groqBad]) expect(url).to.not.include(key.slice(4, 20));
    }
  });
});
