/**
 * What is special about Z.AI, as a caller sees it through Freeway: its business codes, not its HTTP statuses,
 * say what a 429 means. A 1302 (the one request a free Flash model takes per key is still running) is a short
 * wait; a 1113 (no balance) is about the model, and the key keeps serving the free models.
 */
import { expect } from 'chai';
import type { ServerResponse } from 'node:http';
import cohere from '../../providers/cohere/index.ts';
import zai from '../../providers/zai/index.ts';
import zaiFixtures from '../../providers/zai/fixtures.ts';
import { startFreeway, type RunningFreeway } from '../support/freeway.ts';
import { faults } from '../support/faults.ts';
import { getHealth, hello, postChat } from '../support/http.ts';
import { keyHeaders } from '../support/keys.ts';
import { json, startUpstream, type FakeUpstream, type SeenRequest, type UpstreamHandler } from '../support/upstream.ts';

/** Answers with one of Z.AI's documented error rows, as fixtures.ts records it. */
function row(name: string): UpstreamHandler {
  const found = zaiFixtures.errors.find((candidate) => candidate.name === name);
  if (!found) throw new Error(`providers/zai/fixtures.ts has no row "${name}"`);
  return (_req: SeenRequest, res: ServerResponse) => json(res, found.status, found.body);
}

const CONCURRENCY = 'concurrency limit (1302): a short wait';
const NO_BALANCE = 'no balance for a paid model (1113)';
const [FLASH, VISION] = zai.models.map((model) => model.id) as [string, string];

describe('Z.AI through Freeway', () => {
  let upstream: FakeUpstream;
  let backup: FakeUpstream;
  let freeway: RunningFreeway;
  let clock: number;

  before(async () => {
    [upstream, backup] = await Promise.all([startUpstream(), startUpstream(faults.ok('from cohere'))]);
  });
  beforeEach(async () => {
    clock = Date.UTC(2026, 10, 27, 12, 0, 0);
    upstream.requests.length = 0;
    backup.requests.length = 0;
    upstream.handle(faults.ok('from zai'));
    // Z.AI (priority 47) goes before Cohere (130); both are free tiers.
    freeway = await startFreeway({ plugins: [zai, cohere], env: { ZAI_BASE_URL: upstream.url, COHERE_BASE_URL: backup.url }, now: () => clock });
  });
  afterEach(() => freeway.close());
  after(() => Promise.all([upstream.close(), backup.close()]));

  it('a 1302 concurrency answer is a short wait, not a spent quota: another provider answers meanwhile, and Z.AI again 5 s later', async () => {
    upstream.handle(row(CONCURRENCY));
    const keys = keyHeaders('zai', 'cohere');

    const first = await postChat(freeway.url, hello('free:auto'), keys);
    expect(first.status, first.text).to.equal(200);
    expect(first.json.choices[0].message.content).to.equal('from cohere');
    expect(first.headers.get('x-freeway-attempts')).to.match(new RegExp(`^zai/${FLASH} 429 \\d+ms, cohere/[^ ]+ 200 \\d+ms$`));
    expect((await getHealth(freeway.url, keyHeaders('zai'))).providers.zai).to.deep.equal({ state: 'rate_limited', consecutiveFailures: 1, retryAfter: 5 });

    // Two seconds on, the key still waits: Z.AI is not called.
    clock += 2_000;
    const waiting = await postChat(freeway.url, hello('free:auto'), keys);
    expect(waiting.json.choices[0].message.content).to.equal('from cohere');
    expect(upstream.requests).to.have.length(1);

    // Once the slot is free again, Z.AI answers: no daily or per-minute budget was spent.
    clock += 3_000;
    upstream.handle(faults.ok('from zai'));
    const again = await postChat(freeway.url, hello('free:auto'), keys);
    expect(again.status, again.text).to.equal(200);
    expect(again.json.choices[0].message.content).to.equal('from zai');
    expect(again.headers.get('x-freeway-model')).to.equal(`zai/${FLASH}`);
    expect((await getHealth(freeway.url, keyHeaders('zai'))).providers.zai).to.deep.equal({ state: 'healthy', consecutiveFailures: 0 });
  });

  it('a 1302 on a pinned model, with waiting off: a 429 that names the 5 s wait and the provider\'s words', async () => {
    upstream.handle(row(CONCURRENCY));
    const res = await postChat(freeway.url, hello(`zai/${FLASH}`), keyHeaders('zai'));
    expect(res.status, res.text).to.equal(429);
    expect(res.headers.get('retry-after')).to.equal('5');
    expect(res.json.error.type).to.equal('rate_limit_error');
    expect(res.json.error.message).to.match(/zai: usable again in 5s \(429 High concurrency usage of this API/);
  });

  it('a 1113 (no balance) is about the model: the same key answers on the other free model, and stays healthy', async () => {
    upstream.handle((req, res) => (req.body?.model === FLASH ? row(NO_BALANCE)(req, res) : faults.ok('from the vision model')(req, res)));
    const res = await postChat(freeway.url, hello('free:auto'), keyHeaders('zai'));
    expect(res.status, res.text).to.equal(200);
    expect(res.json.choices[0].message.content).to.equal('from the vision model');
    expect(res.headers.get('x-freeway-attempts')).to.match(new RegExp(`^zai/${FLASH} 429 \\d+ms, zai/${VISION} 200 \\d+ms$`));
    expect(upstream.requests.map((req) => req.headers.authorization)).to.deep.equal([
      `Bearer ${keyHeaders('zai')['X-Zai-Key']}`,
      `Bearer ${keyHeaders('zai')['X-Zai-Key']}`,
    ]);
    expect((await getHealth(freeway.url, keyHeaders('zai'))).providers.zai).to.deep.equal({ state: 'healthy', consecutiveFailures: 0 });
  });

  it("the caller's end-user id reaches Z.AI as user_id, the name it documents", async () => {
    const res = await postChat(freeway.url, hello(`zai/${FLASH}`, { user: 'end-user-42' }), keyHeaders('zai'));
    expect(res.status, res.text).to.equal(200);
    const body = upstream.requests[0]?.body ?? {};
    expect(body.user_id).to.equal('end-user-42');
    expect(body).not.to.have.property('user');
  });
});
