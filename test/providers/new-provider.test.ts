/**
 * Adding a provider takes one folder: in a copy of providers/ with a 14th
 * provider in it (scaffolded by `npm run new-provider`, or written by hand),
 * the whole provider-wide suite runs again, in a child mocha that discovers the
 * copy through FREEWAY_TEST_PROVIDERS_DIR, and passes. A plugin that breaks a
 * rule fails the contract with a message that names the folder and the rule.
 */
import { execFile } from 'node:child_process';
import { cp, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';

const root = fileURLToPath(new URL('../..', import.meta.url));
const mocha = join(root, 'node_modules', 'mocha', 'bin', 'mocha.js');
/** Every test file whose cases are per provider. */
const providerWide = ['providers/contract', 'providers/all-providers', 'providers/providers', 'providers/provider-errors', 'http/cors', 'routing/quota', 'security/redaction'].map((name) => `test/${name}.test.ts`);
const CHILD_TIMEOUT_MS = 150_000;

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

function run(args: readonly string[], env: Record<string, string> = {}): Promise<Run> {
  return new Promise((resolve) => {
    execFile(process.execPath, args, { cwd: root, env: { ...process.env, ...env }, timeout: CHILD_TIMEOUT_MS, maxBuffer: 32 * 1024 * 1024 }, (error, stdout, stderr) => {
      const code = error ? (typeof error.code === 'number' ? error.code : null) : 0;
      resolve({ code, stdout, stderr });
    });
  });
}

interface MochaReport {
  stats: { tests: number; passes: number; failures: number; pending: number };
  tests: Array<{ fullTitle: string }>;
  failures: Array<{ fullTitle: string; err: { message?: string } }>;
}

/** Runs test files in a child mocha against the providers in `dir`; the JSON report goes to a file. */
async function suite(dir: string, files: readonly string[]): Promise<{ run: Run; report: MochaReport }> {
  const output = join(dir, 'report.json');
  const child = await run(
    [mocha, '--no-config', '--extension', 'ts', '--timeout', '20000', '--exit', '--reporter', 'json', '--reporter-option', `output=${output}`, ...files],
    { FREEWAY_TEST_PROVIDERS_DIR: dir },
  );
  const report = JSON.parse(await readFile(output, 'utf8')) as MochaReport;
  return { run: child, report };
}

function failures(report: MochaReport): string {
  return report.failures.map((failure) => `${failure.fullTitle}: ${failure.err.message ?? ''}`).join('\n');
}

/** A copy of providers/ inside the repository, so that its imports resolve against node_modules. */
async function copyOfProviders(): Promise<string> {
  const dir = await mkdtemp(join(root, '.test-providers-'));
  await cp(join(root, 'providers'), dir, { recursive: true });
  return dir;
}

/** A plugin written by hand: its own key header, key format, error table and quota headers. */
const zetaIndex = `import { openAICompatibleModel } from '../openai-compatible.ts';
import { quotaReader } from '../quota.ts';
import { nextUtcMidnight } from '../resets.ts';
import type { ProviderPlugin } from '../types.ts';

const zeta: ProviderPlugin = {
  id: 'zeta',
  keyUrl: 'https://example.com/keys',
  tier: { tier: 'free', source: 'https://example.com/pricing', checked: '2026-11-25' },
  name: 'Zeta Inference',
  header: 'X-Zeta-Key',
  keyPatterns: [/zk-live-[A-Za-z0-9]{20,}/],
  baseURL: 'https://inference.zeta.example/api/v2',
  priority: 1000,
  models: [
    { id: 'zeta/swift-2', capabilities: ['fast'], contextWindow: 65536 },
    { id: 'zeta/deep-1', capabilities: ['reasoning', 'long-context'], contextWindow: 200000, deprecated: true },
  ],
  checkKey: (value) => (value.startsWith('zk-live-') ? undefined : 'X-Zeta-Key must be a live key (zk-live-...).'),
  authHeaders: (key) => ({ 'x-api-key': key }),
  errorRules: [
    { name: 'daily budget spent', status: 429, body: /daily budget/, kind: 'rate_limited', retryAt: (_answer, now) => nextUtcMidnight(now) },
    { name: 'slow down', status: 429, kind: 'rate_limited' },
    { name: 'unknown key', status: 403, kind: 'invalid_key' },
  ],
  readQuota: quotaReader({ remainingRequests: 'zeta-requests-left', requestsReset: 'zeta-requests-reset', resetFormat: 'epoch-s' }),
  createModel: (options) => openAICompatibleModel('zeta', options),
};

export default zeta;
`;

const zetaFixtures = `import type { ProviderFixtures } from '../types.ts';

const fixtures: ProviderFixtures = {
  sampleKey: 'zk-live-Hq4Wm8Zt2Xv6Bn3Ka9Rc',
  errors: [
    {
      source: 'written by hand for the test: a provider whose daily budget resets at 00:00 UTC',
      name: 'daily budget spent: out until 00:00 UTC',
      status: 429,
      body: { error: { message: 'Your daily budget is spent.' } },
      kind: 'rate_limited',
      retryAfter: 14400,
    },
    {
      source: 'written by hand for the test',
      name: 'slow down, with Retry-After',
      status: 429,
      headers: { 'retry-after': '9' },
      body: { error: { message: 'Slow down.' } },
      kind: 'rate_limited',
      retryAfter: 9,
    },
    { source: 'written by hand for the test', name: 'unknown key', status: 403, body: { error: { message: 'Unknown key.' } }, kind: 'invalid_key' },
  ],
};

export default fixtures;
`;

describe('adding a provider with one folder', function () {
  this.timeout(CHILD_TIMEOUT_MS + 30_000);
  const made: string[] = [];

  after(async () => {
    await Promise.all(made.map((dir) => rm(dir, { recursive: true, force: true })));
  });

  async function workspace(): Promise<string> {
    const dir = await copyOfProviders();
    made.push(dir);
    return dir;
  }

  function expectAllPassFor(id: string, report: MochaReport, child: Run): void {
    expect(report.stats.failures, failures(report) || child.stderr).to.equal(0);
    expect(report.stats.pending, 'nothing skipped').to.equal(0);
    expect(child.code, child.stderr).to.equal(0);
    const forIt = report.tests.filter((test) => test.fullTitle.includes(id));
    // Its contract rules, both SDK calls, both nock calls and its error rows at least.
    expect(forIt.length, `tests that name ${id}`).to.be.greaterThan(20);
  }

  it('npm run new-provider scaffolds a plugin that passes the whole provider-wide suite as generated', async () => {
    const dir = await workspace();
    const scaffold = await run(['scripts/new-provider.ts', 'acme', '--dir', dir]);
    expect(scaffold.code, scaffold.stderr).to.equal(0);
    expect(scaffold.stdout).to.include('acme');
    const { run: child, report } = await suite(dir, providerWide);
    expectAllPassFor('acme', report, child);
  });

  it('a plugin written by hand (its own header format, key check, error table and quota headers) passes it too', async () => {
    const dir = await workspace();
    await mkdir(join(dir, 'zeta'));
    await writeFile(join(dir, 'zeta', 'index.ts'), zetaIndex);
    await writeFile(join(dir, 'zeta', 'fixtures.ts'), zetaFixtures);
    const { run: child, report } = await suite(dir, providerWide);
    expectAllPassFor('zeta', report, child);
  });

  it('a key pattern that matches a model id fails the contract with the rule in words', async () => {
    const dir = await workspace();
    expect((await run(['scripts/new-provider.ts', 'acme', '--dir', dir])).code).to.equal(0);
    // The key format acme-<letters and digits>, and a model called acme-chat-1.
    const index = join(dir, 'acme', 'index.ts');
    await writeFile(
      index,
      (await readFile(index, 'utf8')).replace('keyPatterns: [/acme_[A-Za-z0-9]{24,}/]', 'keyPatterns: [/acme-[A-Za-z0-9]+/]').replace("id: 'acme-chat'", "id: 'acme-chat-1'"),
    );
    const fixtures = join(dir, 'acme', 'fixtures.ts');
    await writeFile(fixtures, (await readFile(fixtures, 'utf8')).replace(/sampleKey: 'acme_/, "sampleKey: 'acme-"));
    const { run: child, report } = await suite(dir, ['test/providers/contract.test.ts']);
    expect(child.code, 'the contract fails').to.not.equal(0);
    const failed = new Map(report.failures.map((failure) => [failure.fullTitle, failure.err.message]));
    expect([...failed.keys()].sort()).to.deep.equal([
      'provider plugin contract acme no key pattern matches a model id',
      'provider plugin contract the combined redactor leaves every catalog model id readable',
    ]);
    expect(failed.get('provider plugin contract acme no key pattern matches a model id')).to.equal(
      'providers/acme: key pattern /acme-[A-Za-z0-9]+/ also matches model id acme-chat-1; a key pattern must not match any model id, or model ids would be redacted from messages',
    );
    expect(failed.get('provider plugin contract the combined redactor leaves every catalog model id readable')).to.match(
      /^providers\/acme: model id acme-chat-1 comes out of the redactor as "Rate limit reached for model acme\/\[REDACTED\] \(\[REDACTED\]\)\.": a key pattern/,
    );
  });

  it('new-provider refuses a bad id and an existing folder with one line, and writes nothing', async () => {
    const dir = await workspace();
    const cases: Array<[string, string]> = [
      ['Acme', 'new-provider: "Acme" is not a provider id: use 2 to 32 lower-case letters and digits, starting with a letter.'],
      ['acme-ai', 'new-provider: "acme-ai" is not a provider id: use 2 to 32 lower-case letters and digits, starting with a letter.'],
      ['9lives', 'new-provider: "9lives" is not a provider id: use 2 to 32 lower-case letters and digits, starting with a letter.'],
      ['groq', `new-provider: ${join(dir, 'groq')} already exists; pick another id or edit that plugin.`],
    ];
    for (const [id, message] of cases) {
      const refused = await run(['scripts/new-provider.ts', id, '--dir', dir]);
      expect(refused.code, id).to.equal(1);
      expect(refused.stderr, id).to.equal(`${message}\n`);
      expect(refused.stdout, id).to.equal('');
    }
    expect(await readFile(join(dir, 'groq', 'index.ts'), 'utf8')).to.equal(await readFile(join(root, 'providers', 'groq', 'index.ts'), 'utf8'));
  });
});
