import { expect } from 'chai';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { startFreeway, type RunningFreeway } from '../support/freeway.ts';
import { testKeys } from '../support/keys.ts';
import { repoRoot, runToExit } from '../support/process.ts';
import { openAIText, startUpstream, type FakeUpstream } from '../support/upstream.ts';

const examplesDir = join(repoRoot, 'examples');

/** What each example prints against an upstream that answers "Hello from upstream" (usage: 7 in, 3 out). */
const expected: Record<string, RegExp[]> = {
  'chat.mjs': [/^Hello from upstream$/, /^answered by groq\/\S+ \(attempts: groq\/\S+ 200 \d+ms\)$/, /^tokens: 7 in, 3 out$/],
  'stream.mjs': [/^Hello from upstream$/, /^tokens: 7 in, 3 out$/],
  'ai-sdk.mjs': [/^Hello from upstream$/, /^tokens: 7 in, 3 out$/, /^Hello from upstream$/, /^streamed tokens: 7 in, 3 out$/],
};

describe('examples/*.mjs run against Freeway and a local upstream', function () {
  this.timeout(30_000);
  let upstream: FakeUpstream;
  let freeway: RunningFreeway;
  before(async () => {
    upstream = await startUpstream((req, res) => openAIText(res, 'Hello from upstream', req));
    freeway = await startFreeway({ env: { GROQ_BASE_URL: upstream.url } });
  });
  after(async () => {
    await freeway.close();
    await upstream.close();
  });

  const examples = readdirSync(examplesDir).filter((name) => name.endsWith('.mjs')).sort();

  it('every example has its expected output here', () => {
    expect(examples).to.deep.equal(Object.keys(expected).sort());
  });

  for (const example of examples) {
    it(`${example} prints the answer`, async () => {
      const run = await runToExit(process.execPath, [join(examplesDir, example)], { FREEWAY_URL: freeway.url, GROQ_API_KEY: testKeys.groq as string });
      expect(run.code, run.stderr).to.equal(0);
      expect(run.stderr).to.equal('');
      const lines = run.stdout.split('\n').filter((line) => line !== '');
      const patterns = expected[example] ?? [];
      expect(lines, run.stdout).to.have.length(patterns.length);
      patterns.forEach((pattern, i) => expect(lines[i], run.stdout).to.match(pattern));
    });
  }

  it('the AI SDK example reaches the upstream with the caller\'s key, once per call', async () => {
    upstream.requests.length = 0;
    const run = await runToExit(process.execPath, [join(examplesDir, 'ai-sdk.mjs')], { FREEWAY_URL: freeway.url, GROQ_API_KEY: testKeys.groq as string });
    expect(run.code, run.stderr).to.equal(0);
    // Both calls reached the upstream with the caller's key.
    expect(upstream.requests).to.have.length(2);
    for (const seen of upstream.requests) expect(seen.headers.authorization).to.equal(`Bearer ${testKeys.groq}`);
  });
});
