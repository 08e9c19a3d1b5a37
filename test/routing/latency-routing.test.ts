import { expect } from 'chai';
import { startFreeway, type RunningFreeway } from '../support/freeway.ts';
import { faults } from '../support/faults.ts';
import { hello, postChat } from '../support/http.ts';
import { keyHeaders } from '../support/keys.ts';
import { startUpstream, type FakeUpstream } from '../support/upstream.ts';

// Two providers of the same (free) tier: speed never moves a costlier tier ahead of a cheaper one.
describe('ordering by observed speed (ROUTING=latency)', () => {
  let groq: FakeUpstream;
  let nvidia: FakeUpstream;
  let freeway: RunningFreeway | undefined;
  /** Values handed to the router's Math.random, in order; 0.99 (no exploration) when empty. */
  let dice: number[];
  const keys = keyHeaders('groq', 'nvidia');

  before(async () => {
    [groq, nvidia] = await Promise.all([startUpstream(faults.slow(150, 'slow groq')), startUpstream(faults.ok('fast nvidia'))]);
  });
  beforeEach(() => {
    dice = [];
  });
  afterEach(() => freeway?.close());
  after(() => Promise.all([groq.close(), nvidia.close()]));

  async function start(routing: string): Promise<RunningFreeway> {
    freeway = await startFreeway({
      env: { GROQ_BASE_URL: groq.url, NVIDIA_BASE_URL: nvidia.url, ROUTING: routing, ROUTING_EXPLORE_SHARE: '0.05' },
      random: () => dice.shift() ?? 0.99,
    });
    return freeway;
  }

  /** free:fast's candidates with a groq and an NVIDIA key: each provider's current fast models, groq first. */
  function fastCandidates(server: RunningFreeway): string[] {
    return ['groq', 'nvidia'].flatMap((id) =>
      (server.catalog.providers.find((provider) => provider.id === id)?.models ?? [])
        .filter((model) => !model.deprecated && model.capabilities.includes('fast'))
        .map((model) => `${id}/${model.id}`),
    );
  }

  async function modelFor(server: RunningFreeway, roll?: number[]): Promise<string | null> {
    if (roll) dice.push(...roll);
    const res = await postChat(server.url, hello('free:fast'), keys);
    expect(res.status).to.equal(200);
    return res.headers.get('x-freeway-model');
  }

  it('starts in priority order, explores now and then, and moves to the faster provider', async () => {
    const server = await start('latency');
    const candidates = fastCandidates(server);
    const nvidiaIndex = candidates.findIndex((candidate) => candidate.startsWith('nvidia/'));
    const nvidiaFirst = candidates[nvidiaIndex];
    expect(nvidiaIndex, 'an nvidia candidate after the groq ones').to.be.greaterThan(0);
    // Nothing measured yet: provider priority.
    expect(await modelFor(server)).to.equal(candidates[0]);
    // The measured groq model leads; an exploring request (roll < 0.05) tries the first nvidia candidate
    // first: the router picks index 1 + floor(roll * (candidates - 1)), so roll in the middle of its slot.
    const roll = (nvidiaIndex - 1 + 0.5) / (candidates.length - 1);
    expect(await modelFor(server, [0.01, roll])).to.equal(nvidiaFirst);
    // Now measured faster than groq's 150 ms, it goes first without exploring.
    expect(await modelFor(server)).to.equal(nvidiaFirst);
    expect(await modelFor(server)).to.equal(nvidiaFirst);
  });

  it('ROUTING=priority ignores speed and never explores', async () => {
    const server = await start('priority');
    const first = fastCandidates(server)[0];
    expect(await modelFor(server)).to.equal(first);
    expect(await modelFor(server, [0.01, 0.3])).to.equal(first);
    expect(await modelFor(server)).to.equal(first);
  });

  it('explores about ROUTING_EXPLORE_SHARE of requests with real randomness', async () => {
    freeway = await startFreeway({
      env: { GROQ_BASE_URL: groq.url, NVIDIA_BASE_URL: nvidia.url, ROUTING: 'latency', ROUTING_EXPLORE_SHARE: '0.5' },
    });
    groq.handle(faults.ok('fast groq'));
    const models = new Set<string | null>();
    for (let i = 0; i < 20; i++) models.add(await modelFor(freeway));
    // With half the requests exploring, more than one model must have answered.
    expect(models.size).to.be.greaterThan(1);
    groq.handle(faults.slow(150, 'slow groq'));
  });
});
