/**
 * What is special about Ollama Cloud, as a caller sees it through Freeway: a 403 or 402 about a model outside the
 * key's plan leaves the key serving the starter models; the old plans' session and weekly limits wait for their
 * window, not a minute; and a free key's allowance is a monthly credit, spent only when no free tier answers.
 */
import { expect } from 'chai';
import type { ServerResponse } from 'node:http';
import cohere from '../../providers/cohere/index.ts';
import ollama, { sessionWindowEnd } from '../../providers/ollama/index.ts';
import ollamaFixtures from '../../providers/ollama/fixtures.ts';
import { startFreeway, type RunningFreeway } from '../support/freeway.ts';
import { faults } from '../support/faults.ts';
import { getHealth, hello, postChat } from '../support/http.ts';
import { keyHeaders } from '../support/keys.ts';
import { json, startUpstream, type FakeUpstream, type SeenRequest, type UpstreamHandler } from '../support/upstream.ts';

/** Answers with one of Ollama's error rows, as fixtures.ts records it. */
function row(name: string): UpstreamHandler {
  const found = ollamaFixtures.errors.find((candidate) => candidate.name === name);
  if (!found) throw new Error(`providers/ollama/fixtures.ts has no row "${name}"`);
  return (_req: SeenRequest, res: ServerResponse) => json(res, found.status, found.body);
}

const SESSION = 'session usage limit: out until the 5-hour window ends';
const WEEKLY = 'weekly usage limit: out until the week starts again';
const [FIRST, SECOND] = ollama.models.map((model) => model.id) as [string, string];
const key = keyHeaders('ollama')['X-Ollama-Key'] as string;

describe('Ollama Cloud through Freeway', () => {
  let upstream: FakeUpstream;
  let free: FakeUpstream;
  let freeway: RunningFreeway;
  let clock: number;

  before(async () => {
    [upstream, free] = await Promise.all([startUpstream(), startUpstream(faults.ok('from cohere'))]);
  });
  beforeEach(() => {
    upstream.requests.length = 0;
    free.requests.length = 0;
    upstream.handle(faults.ok('from ollama'));
    free.handle(faults.ok('from cohere'));
  });
  afterEach(() => freeway.close());
  after(() => Promise.all([upstream.close(), free.close()]));

  /** Freeway with Ollama (monthly credit, priority 95) and Cohere (a free tier, priority 130), its clock at `at`. */
  async function start(at: number): Promise<void> {
    clock = at;
    freeway = await startFreeway({ plugins: [ollama, cohere], env: { OLLAMA_BASE_URL: upstream.url, COHERE_BASE_URL: free.url }, now: () => clock });
  }

  for (const name of ['model needs a subscription (HTTP 403)', 'model billed to extra usage only, with none bought (HTTP 402)']) {
    it(`${name} is about the model: the next starter model answers with the same key, which stays healthy`, async () => {
      await start(Date.UTC(2026, 10, 27, 12, 0, 0));
      upstream.handle((req, res) => (req.body?.model === FIRST ? row(name)(req, res) : faults.ok('from the next model')(req, res)));
      const res = await postChat(freeway.url, hello('free:auto'), keyHeaders('ollama'));
      expect(res.status, res.text).to.equal(200);
      expect(res.json.choices[0].message.content).to.equal('from the next model');
      const status = name.includes('403') ? 403 : 402;
      expect(res.headers.get('x-freeway-attempts')).to.match(new RegExp(`^ollama/${FIRST} ${status} \\d+ms, ollama/${SECOND} 200 \\d+ms$`));
      expect(upstream.requests.map((req) => req.headers.authorization)).to.deep.equal([`Bearer ${key}`, `Bearer ${key}`]);
      // Not a refused key and not a spent credit: nothing to fix, nothing to wait for.
      expect((await getHealth(freeway.url, keyHeaders('ollama'))).providers.ollama).to.deep.equal({ state: 'healthy', consecutiveFailures: 0 });
    });
  }

  it('a session limit waits until the 5-hour window ends, not a minute: a minute before its end, one minute', async () => {
    // The windows sit on a fixed five-hour grid; the one around 20:00 UTC that day ends at midnight.
    const end = sessionWindowEnd(Date.UTC(2026, 10, 27, 20, 0, 0));
    expect(new Date(end).toISOString()).to.equal('2026-11-28T00:00:00.000Z');
    await start(end - 60_000);
    upstream.handle(row(SESSION));
    const res = await postChat(freeway.url, hello(`ollama/${FIRST}`), keyHeaders('ollama'));
    expect(res.status, res.text).to.equal(429);
    expect(res.headers.get('retry-after')).to.equal('60');
    expect(res.json.error.message).to.match(/ollama: usable again in 60s \(429 you \(atoomic\) have reached your session usage limit/);
    expect((await getHealth(freeway.url, keyHeaders('ollama'))).providers.ollama).to.deep.equal({ state: 'rate_limited', consecutiveFailures: 1, retryAfter: 60 });

    // The window is over: the key is called again.
    clock = end;
    upstream.handle(faults.ok('from ollama'));
    const again = await postChat(freeway.url, hello(`ollama/${FIRST}`), keyHeaders('ollama'));
    expect(again.status, again.text).to.equal(200);
    expect(again.json.choices[0].message.content).to.equal('from ollama');
  });

  it('a weekly limit waits until Monday 00:00 UTC: on Sunday at 23:00 UTC, one hour', async () => {
    // 2026-11-29 is a Sunday.
    await start(Date.UTC(2026, 10, 29, 23, 0, 0));
    upstream.handle(row(WEEKLY));
    const res = await postChat(freeway.url, hello(`ollama/${FIRST}`), keyHeaders('ollama'));
    expect(res.status, res.text).to.equal(429);
    expect(res.headers.get('retry-after')).to.equal('3600');
    expect((await getHealth(freeway.url, keyHeaders('ollama'))).providers.ollama).to.deep.equal({ state: 'rate_limited', consecutiveFailures: 1, retryAfter: 3600 });
  });

  it("a free key's monthly credit is spent only when no free tier answers", async () => {
    await start(Date.UTC(2026, 10, 27, 12, 0, 0));
    const keys = keyHeaders('ollama', 'cohere');
    // Cohere's priority number is higher, but it is a free tier: it goes first.
    const first = await postChat(freeway.url, hello('free:auto'), keys);
    expect(first.status, first.text).to.equal(200);
    expect(first.json.choices[0].message.content).to.equal('from cohere');
    expect(upstream.requests).to.have.length(0);

    // Cohere out of its quota: the credit pays.
    free.handle(faults.rateLimited(300));
    const second = await postChat(freeway.url, hello('free:auto'), keys);
    expect(second.status, second.text).to.equal(200);
    expect(second.json.choices[0].message.content).to.equal('from ollama');
    expect(second.headers.get('x-freeway-model')).to.equal(`ollama/${FIRST}`);
  });
});
