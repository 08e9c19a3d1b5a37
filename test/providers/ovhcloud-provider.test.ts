/**
 * What is particular to OVHcloud AI Endpoints, through Freeway's HTTP API against a fake endpoint on
 * 127.0.0.1 (reached through OVHCLOUD_BASE_URL): its 429 is a per-minute limit (2 requests a minute
 * without a key, 400 with one), a short wait and not a spent quota; and its BGE-M3 serves the bge-m3
 * weights, so `free:embed` reaches it with only an OVHcloud key, in batches of at most 16 inputs.
 */
import { expect } from 'chai';
import { startFreeway, type RunningFreeway } from '../support/freeway.ts';
import { expectError } from '../support/errors.ts';
import { testKeys } from '../support/keys.ts';
import { providerFixtures } from '../support/plugins.ts';
import { json, openAIText, startUpstream, type FakeUpstream, type SeenRequest } from '../support/upstream.ts';

const fixtures = (await providerFixtures()).get('ovhcloud');
const keyHeader = { 'X-Ovhcloud-Key': testKeys.ovhcloud as string };
const START = Date.UTC(2026, 10, 27, 9, 0, 0);

function chat(freeway: RunningFreeway, model: string): Promise<Response> {
  return fetch(`${freeway.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...keyHeader },
    body: JSON.stringify({ model, messages: [{ role: 'user', content: 'hi' }] }),
  });
}

async function health(freeway: RunningFreeway): Promise<Record<string, unknown> | undefined> {
  const body = (await (await fetch(`${freeway.url}/health`, { headers: keyHeader })).json()) as { providers: Record<string, Record<string, unknown>> };
  return body.providers.ovhcloud;
}

describe('ovhcloud: what AI Endpoints answers, as a Freeway user sees it', () => {
  let upstream: FakeUpstream;
  const running: RunningFreeway[] = [];

  beforeEach(async () => {
    upstream = await startUpstream();
  });

  afterEach(async () => {
    for (const freeway of running.splice(0)) await freeway.close();
    await upstream.close();
  });

  it('a 429 is the per-minute limit: the key sits out one minute, not a day, and an alias uses it again after it', async () => {
    const limited = fixtures?.errors.find((row) => row.status === 429);
    if (!limited) throw new Error('providers/ovhcloud/fixtures.ts has no 429 row');
    let now = START;
    let limit = true;
    upstream.handle((req, res) => {
      if (!limit) return openAIText(res, 'Hello', req);
      res.writeHead(limited.status, { 'content-type': 'text/plain', 'content-length': Buffer.byteLength(String(limited.body)) });
      res.end(String(limited.body));
    });
    const freeway = await startFreeway({ env: { OVHCLOUD_BASE_URL: upstream.url }, now: () => now });
    running.push(freeway);

    await expectError(await chat(freeway, 'free:auto'), 429, 'rate_limit_error', "Every key that could answer is resting for its rate-limit window, beyond this request's wait budget: ovhcloud: usable again in 60s (429 Too Many Requests)");
    expect(upstream.requests).to.have.length(1);
    expect(await health(freeway)).to.deep.include({ state: 'rate_limited', consecutiveFailures: 1, retryAfter: 60 });

    // Within the minute the key is not sent again.
    upstream.requests.length = 0;
    now += 30_000;
    const skipped = await expectError(await chat(freeway, 'free:auto'), 429, 'rate_limit_error', "Every key that could answer is resting for its rate-limit window, beyond this request's wait budget: ovhcloud: usable again in 30s (429 Too Many Requests)");
    expect(skipped.headers.get('retry-after')).to.equal('30');
    expect(upstream.requests).to.deep.equal([]);

    // After it, the same key answers.
    limit = false;
    now += 31_000;
    const res = await chat(freeway, 'free:auto');
    expect(res.status, await res.clone().text()).to.equal(200);
    expect(upstream.requests).to.have.length(1);
  });

  it('free:embed reaches BGE-M3 with only an OVHcloud key, 16 inputs a call, and names the deployment', async () => {
    const seen: Array<Record<string, unknown>> = [];
    upstream.handle((req: SeenRequest, res) => {
      const input = (req.body?.input ?? []) as string[];
      seen.push({ path: req.path, model: req.body?.model, count: input.length, authorization: req.headers.authorization });
      json(res, 200, {
        object: 'list',
        data: input.map((text, index) => ({ object: 'embedding', index, embedding: [text.length / 100, 0.25, -0.5] })),
        model: 'BGE-M3',
        usage: { prompt_tokens: input.length * 3, total_tokens: input.length * 3 },
      });
    });
    const freeway = await startFreeway({ env: { OVHCLOUD_BASE_URL: upstream.url } });
    running.push(freeway);

    const input = Array.from({ length: 20 }, (_, i) => `passage number ${i}`);
    const res = await fetch(`${freeway.url}/v1/embeddings`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...keyHeader },
      body: JSON.stringify({ model: 'free:embed', input }),
    });
    const text = await res.text();
    expect(res.status, text).to.equal(200);
    expect(res.headers.get('x-freeway-model')).to.equal('ovhcloud/BGE-M3');
    const body = JSON.parse(text) as { model: string; data: Array<{ index: number; embedding: number[] }>; usage: unknown };
    expect(body.model).to.equal('ovhcloud/BGE-M3');
    expect(body.data.map((item) => item.index)).to.deep.equal(input.map((_, i) => i));
    expect(body.data.map((item) => item.embedding[0])).to.deep.equal(input.map((passage) => passage.length / 100));
    expect(body.usage).to.deep.equal({ prompt_tokens: 60, total_tokens: 60 });
    const bearer = `Bearer ${testKeys.ovhcloud as string}`;
    expect(seen).to.deep.equal([
      { path: '/embeddings', model: 'BGE-M3', count: 16, authorization: bearer },
      { path: '/embeddings', model: 'BGE-M3', count: 4, authorization: bearer },
    ]);
  });
});
