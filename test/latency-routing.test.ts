import { expect } from 'chai';
import { startFreeway, type RunningFreeway } from './support/freeway.ts';
import { faults } from './support/faults.ts';
import { hello, postChat } from './support/http.ts';
import { keyHeaders } from './support/keys.ts';
import { startUpstream, type FakeUpstream } from './support/upstream.ts';

describe('ordering by observed speed (ROUTING=latency)', () => {
  let groq: FakeUpstream;
  let cerebras: FakeUpstream;
  let freeway: RunningFreeway | undefined;
  /** Values handed to the router's Math.random, in order; 0.99 (no exploration) when empty. */
  let dice: number[];
  const keys = keyHeaders('groq', 'cerebras');

  before(async () => {
    [groq, cerebras] = await Promise.all([startUpstream(faults.slow(150, 'slow groq')), startUpstream(faults.ok('fast cerebras'))]);
  });
  beforeEach(() => {
    dice = [];
  });
  afterEach(() => freeway?.close());
  after(() => Promise.all([groq.close(), cerebras.close()]));

  async function start(routing: string): Promise<RunningFreeway> {
    freeway = await startFreeway({
      env: { GROQ_BASE_URL: groq.url, CEREBRAS_BASE_URL: cerebras.url, ROUTING: routing, ROUTING_EXPLORE_SHARE: '0.05' },
      random: () => dice.shift() ?? 0.99,
    });
    return freeway;
  }

  async function modelFor(server: RunningFreeway, roll?: number[]): Promise<string | null> {
    if (roll) dice.push(...roll);
    const res = await postChat(server.url, hello('free:fast'), keys);
    expect(res.status).to.equal(200);
    return res.headers.get('x-freeway-model');
  }

  it('starts in priority order, explores now and then, and moves to the faster provider', async () => {
    const server = await start('latency');
    // Nothing measured yet: provider priority.
    expect(await modelFor(server)).to.equal('groq/llama-3.3-70b-versatile');
    // The measured groq model leads; an exploring request (roll < 0.05) tries the third candidate,
    // cerebras/llama-3.3-70b, first (1 + floor(0.3 * 5) = index 2 of 6).
    expect(await modelFor(server, [0.01, 0.3])).to.equal('cerebras/llama-3.3-70b');
    // Now measured faster than groq's 150 ms, it goes first without exploring.
    expect(await modelFor(server)).to.equal('cerebras/llama-3.3-70b');
    expect(await modelFor(server)).to.equal('cerebras/llama-3.3-70b');
  });

  it('ROUTING=priority ignores speed and never explores', async () => {
    const server = await start('priority');
    expect(await modelFor(server)).to.equal('groq/llama-3.3-70b-versatile');
    expect(await modelFor(server, [0.01, 0.3])).to.equal('groq/llama-3.3-70b-versatile');
    expect(await modelFor(server)).to.equal('groq/llama-3.3-70b-versatile');
  });

  it('explores about ROUTING_EXPLORE_SHARE of requests with real randomness', async () => {
    freeway = await startFreeway({
      env: { GROQ_BASE_URL: groq.url, CEREBRAS_BASE_URL: cerebras.url, ROUTING: 'latency', ROUTING_EXPLORE_SHARE: '0.5' },
    });
    groq.handle(faults.ok('fast groq'));
    const models = new Set<string | null>();
    for (let i = 0; i < 20; i++) models.add(await modelFor(freeway));
    // With half the requests exploring, more than one model must have answered.
    expect(models.size).to.be.greaterThan(1);
    groq.handle(faults.slow(150, 'slow groq'));
  });
});
