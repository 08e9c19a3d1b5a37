import { expect } from 'chai';
import { Redis } from 'ioredis';
import { tierRank, type CatalogModel } from '../../catalog/catalog.ts';
import { startFreeway, type RunningFreeway } from '../support/freeway.ts';
import { postChat, readAnswer } from '../support/http.ts';
import { keyHeaders } from '../support/keys.ts';
import { skipWithoutRedis, startRedis, type RunningRedis } from '../support/redis.ts';
import { json, openAIText, startUpstream, type FakeUpstream } from '../support/upstream.ts';

/**
 * One model per conversation: a later turn of a conversation through an alias (same keys, system
 * prompt and first user turn) goes first to the model that answered the turn before, even when a
 * higher-ranked model is healthy again, for STICKY_TTL_MS after its last answer.
 */

const SYSTEM = 'You are a careful assistant.';
const secret = 'test-secret-for-key-hashes-0123456789';

/** A conversation's turns in chat completions shape: the first user turn, then each answer and the next question. */
function chatTurn(first: string, later: readonly string[] = [], model = 'free:auto') {
  const messages: Array<{ role: string; content: string }> = [
    { role: 'system', content: SYSTEM },
    { role: 'user', content: first },
  ];
  for (const question of later) messages.push({ role: 'assistant', content: 'An answer.' }, { role: 'user', content: question });
  return { model, messages };
}

describe('one model per conversation (STICKY)', () => {
  let groq: FakeUpstream;
  let nvidia: FakeUpstream;
  let freeway: RunningFreeway | undefined;
  let clock: number;
  const keys = keyHeaders('groq', 'nvidia');

  before(async () => {
    [groq, nvidia] = await Promise.all([startUpstream(), startUpstream()]);
  });
  beforeEach(() => {
    clock = Date.UTC(2026, 10, 27, 12);
    healthy();
  });
  afterEach(() => freeway?.close());
  after(() => Promise.all([groq.close(), nvidia.close()]));

  function healthy(): void {
    for (const upstream of [groq, nvidia]) {
      upstream.requests.length = 0;
      upstream.handle((req, res) => openAIText(res, `answered by ${String(req.body?.model)}`, req));
    }
  }
  const down = (upstream: FakeUpstream): void => upstream.handle((_req, res) => json(res, 503, { error: { message: 'Service unavailable' } }));

  async function start(env: Record<string, string> = {}): Promise<RunningFreeway> {
    freeway = await startFreeway({ env: { GROQ_BASE_URL: groq.url, NVIDIA_BASE_URL: nvidia.url, ROUTING: 'quality', STICKY: 'on', ROUTING_EXPLORE_SHARE: '0', ...env }, now: () => clock });
    return freeway;
  }

  /** The highest-scored free candidate of `provider` in free:auto. */
  function strongestOf(server: RunningFreeway, provider?: string): CatalogModel {
    const alias = server.catalog.aliases.find((candidate) => candidate.id === 'free:auto');
    const models = (alias?.models ?? []).filter((model) => (provider ? model.provider.id === provider : ['groq', 'nvidia'].includes(model.provider.id)) && tierRank(model.provider) === 0);
    return models.reduce((best, model) => ((model.spec.quality?.score ?? -1) > (best.spec.quality?.score ?? -1) ? model : best));
  }

  /** Turn one answered by Groq while NVIDIA (whose model ranks first) is down; then NVIDIA is back. */
  async function firstTurnOnGroq(server: RunningFreeway): Promise<CatalogModel> {
    const best = strongestOf(server);
    expect(best.provider.id, 'the test needs NVIDIA to hold the strongest model').to.equal('nvidia');
    down(nvidia);
    const one = await postChat(server.url, chatTurn('Plan a trip.'), keys);
    expect(one.status, one.text).to.equal(200);
    const answered = one.headers.get('x-freeway-model') as string;
    expect(answered).to.match(/^groq\//);
    healthy();
    return server.catalog.byId.get(answered) as CatalogModel;
  }

  it('a second turn goes to the model that answered the first, even with a higher-ranked model healthy again', async () => {
    const server = await start();
    const first = await firstTurnOnGroq(server);
    const two = await postChat(server.url, chatTurn('Plan a trip.', ['Now for two people.']), keys);
    expect(two.status, two.text).to.equal(200);
    expect(two.headers.get('x-freeway-model')).to.equal(first.id);
    expect(nvidia.requests, 'the higher-ranked model is not called').to.have.length(0);
  });

  it('another conversation (another first turn, another system prompt, other keys) is routed as usual', async () => {
    const server = await start();
    await firstTurnOnGroq(server);
    const best = strongestOf(server).id;
    expect((await postChat(server.url, chatTurn('Write a poem.'), keys)).headers.get('x-freeway-model')).to.equal(best);
    const otherSystem = chatTurn('Plan a trip.', ['Now for two people.']);
    otherSystem.messages[0] = { role: 'system', content: 'You are terse.' };
    expect((await postChat(server.url, otherSystem, keys)).headers.get('x-freeway-model')).to.equal(best);
    const otherKeys = { ...keys, 'X-Groq-Key': 'gsk_Z9yX8wV7uT6sR5qP4oN3mL2kJ1iH0gFe' };
    expect((await postChat(server.url, chatTurn('Plan a trip.', ['Now for two people.']), otherKeys)).headers.get('x-freeway-model')).to.equal(best);
  });

  it('STICKY=off restores plain routing', async () => {
    const server = await start({ STICKY: 'off' });
    await firstTurnOnGroq(server);
    const two = await postChat(server.url, chatTurn('Plan a trip.', ['Now for two people.']), keys);
    expect(two.headers.get('x-freeway-model')).to.equal(strongestOf(server).id);
  });

  it('a conversation is forgotten STICKY_TTL_MS after its last answer; each answer refreshes it', async () => {
    const server = await start({ STICKY_TTL_MS: '60000' });
    const first = await firstTurnOnGroq(server);
    clock += 50_000;
    expect((await postChat(server.url, chatTurn('Plan a trip.', ['2']), keys)).headers.get('x-freeway-model')).to.equal(first.id);
    clock += 50_000;
    expect((await postChat(server.url, chatTurn('Plan a trip.', ['2', '3']), keys)).headers.get('x-freeway-model'), 'refreshed by the last answer').to.equal(first.id);
    clock += 61_000;
    expect((await postChat(server.url, chatTurn('Plan a trip.', ['2', '3', '4']), keys)).headers.get('x-freeway-model')).to.equal(strongestOf(server).id);
  });

  it('when the kept model fails, the turn fails over as usual and the conversation keeps what answered', async () => {
    const server = await start();
    const first = await firstTurnOnGroq(server);
    down(groq);
    const two = await postChat(server.url, chatTurn('Plan a trip.', ['2']), keys);
    expect(two.status, two.text).to.equal(200);
    expect(two.headers.get('x-freeway-attempts')).to.match(new RegExp(`^${first.id.replace(/[/.]/g, '\\$&')} 503 \\d+ms, nvidia/`));
    const nowKept = two.headers.get('x-freeway-model') as string;
    healthy();
    // Priority routing would try Groq first now; the conversation stays on the NVIDIA model that answered.
    const three = await postChat(server.url, chatTurn('Plan a trip.', ['2', '3']), { ...keys, 'X-Freeway-Routing': 'priority' });
    expect(three.headers.get('x-freeway-model')).to.equal(nowKept);
    expect(groq.requests).to.have.length(0);
  });

  it('it sticks to the model, not the key: a pool keeps taking turns', async () => {
    const server = await start();
    const pool = { 'X-Groq-Key': `${keyHeaders('groq')['X-Groq-Key']},gsk_Z9yX8wV7uT6sR5qP4oN3mL2kJ1iH0gFe` };
    const one = await postChat(server.url, chatTurn('Plan a trip.'), pool);
    const two = await postChat(server.url, chatTurn('Plan a trip.', ['2']), pool);
    expect(two.headers.get('x-freeway-model')).to.equal(one.headers.get('x-freeway-model'));
    const keyOf = (res: { headers: Headers }): string | undefined => /key (\d)/.exec(res.headers.get('x-freeway-attempts') ?? '')?.[1];
    expect([keyOf(one), keyOf(two)].sort()).to.deep.equal(['1', '2']);
  });

  it('a kept model that lacks what this turn needs (an image) is passed over', async () => {
    const server = await start();
    const first = await firstTurnOnGroq(server);
    expect(first.spec.capabilities).to.not.include('vision');
    const withImage = chatTurn('Plan a trip.', ['x']);
    const body = { ...withImage, messages: [...withImage.messages.slice(0, -1), { role: 'user', content: [{ type: 'text', text: 'And this?' }, { type: 'image_url', image_url: { url: 'https://example.com/a.png' } }] }] };
    const res = await postChat(server.url, body, keys);
    // Neither key has a vision model here: the alias answers that it cannot, which shows the kept model was not forced in.
    expect(res.status).to.equal(400);
    expect(res.json.error.message).to.match(/^Your keys \(.+\) have no model for free:auto that takes images; keys of /);
  });

  it('pinned requests neither keep nor follow a conversation', async () => {
    const server = await start();
    const groqModel = strongestOf(server, 'groq');
    await postChat(server.url, chatTurn('Plan a trip.', [], groqModel.id), keys);
    const two = await postChat(server.url, chatTurn('Plan a trip.', ['2']), keys);
    expect(two.headers.get('x-freeway-model')).to.equal(strongestOf(server).id);
  });

  it('on /v1/messages and /v1/responses alike', async () => {
    const server = await start();
    const first = await firstTurnOnGroq(server);
    const post = async (path: string, body: unknown): Promise<string | null> => {
      const res = await fetch(`${server.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', 'anthropic-version': '2023-06-01', ...keys }, body: JSON.stringify(body) });
      const answer = await readAnswer(res);
      expect(answer.status, answer.text).to.equal(200);
      return answer.headers.get('x-freeway-model');
    };
    expect(
      await post('/v1/messages', {
        model: 'free:auto',
        max_tokens: 100,
        system: SYSTEM,
        messages: [
          { role: 'user', content: 'Plan a trip.' },
          { role: 'assistant', content: 'An answer.' },
          { role: 'user', content: '2' },
        ],
      }),
    ).to.equal(first.id);
    expect(
      await post('/v1/responses', {
        model: 'free:auto',
        instructions: SYSTEM,
        input: [
          { role: 'user', content: 'Plan a trip.' },
          { role: 'assistant', content: 'An answer.' },
          { role: 'user', content: '2' },
        ],
      }),
    ).to.equal(first.id);
    expect(nvidia.requests).to.have.length(0);
  });

  describe('shared through Redis', () => {
    let redis: RunningRedis;
    let peek: Redis;
    let other: RunningFreeway | undefined;

    before(async function () {
      skipWithoutRedis(this);
      redis = await startRedis();
      peek = new Redis(redis.url, { maxRetriesPerRequest: 1 });
    });
    afterEach(() => other?.close());
    after(async () => {
      peek?.disconnect();
      await redis?.kill();
    });

    const shared = (extra: Record<string, string> = {}): Record<string, string> => ({ REDIS_URL: redis.url, KEY_HASH_SECRET: secret, ...extra });

    it('a turn on another instance goes to the model that answered on the first; Redis holds no content', async () => {
      const a = await start(shared());
      other = await startFreeway({ env: { GROQ_BASE_URL: groq.url, NVIDIA_BASE_URL: nvidia.url, ROUTING: 'quality', STICKY: 'on', ROUTING_EXPLORE_SHARE: '0', ...shared() }, now: () => clock, awaitRedis: true });
      const first = await firstTurnOnGroq(a);
      const two = await postChat(other.url, chatTurn('Plan a trip.', ['2']), keys);
      expect(two.headers.get('x-freeway-model')).to.equal(first.id);

      const stored = (await peek.keys('freeway:sticky:*')).filter((key) => !key.endsWith(':index'));
      expect(stored).to.have.length(1);
      expect(stored[0]).to.match(/^freeway:sticky:conversation:[A-Za-z0-9_-]{20,}$/);
      expect(await peek.get(stored[0] as string)).to.equal(first.id);
      for (const key of await peek.keys('*')) {
        const value = (await peek.type(key)) === 'zset' ? await peek.zrange(key, '0', '-1') : await peek.dump(key);
        const dump = key + JSON.stringify(value);
        for (const secretText of ['Plan a trip', SYSTEM, keys['X-Groq-Key'] as string]) expect(dump).to.not.include(secretText);
      }
    });

    it('holds at most STICKY_MAX_ENTRIES conversations, the least recently used dropped first', async () => {
      await peek.flushall();
      const server = await start(shared({ STICKY_MAX_ENTRIES: '3' }));
      for (let i = 0; i < 8; i++) expect((await postChat(server.url, chatTurn(`Conversation ${i}`), keys)).status).to.equal(200);
      const stored = (await peek.keys('freeway:sticky:*')).filter((key) => !key.endsWith(':index'));
      expect(stored).to.have.length(3);
      expect(await peek.zcard('freeway:sticky:index')).to.equal(3);
    });
  });

  it('in memory, at most STICKY_MAX_ENTRIES conversations: an evicted one is routed as usual', async () => {
    const server = await start({ STICKY_MAX_ENTRIES: '1' });
    const first = await firstTurnOnGroq(server);
    await postChat(server.url, chatTurn('Another conversation.'), keys);
    const two = await postChat(server.url, chatTurn('Plan a trip.', ['2']), keys);
    expect(two.headers.get('x-freeway-model')).to.not.equal(first.id);
  });
});
