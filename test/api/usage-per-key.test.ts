/**
 * Usage per key: what each key did, per model and UTC day, counted from every client API and
 * shown in GET /v1/providers to a caller who sends that key, and only to them.
 */
import { expect } from 'chai';
import { startFreeway, type RunningFreeway } from '../support/freeway.ts';
import { postChat } from '../support/http.ts';
import { testKeys } from '../support/keys.ts';
import { json, openAIError, openAIText, startUpstream, type FakeUpstream } from '../support/upstream.ts';

const GROQ = 'groq/openai/gpt-oss-120b';
const MISTRAL_EMBED = 'mistral/mistral-embed';
const DAY_MS = 86_400_000;

interface ModelUsage {
  model: string;
  requests: number;
  answers: number;
  failures: Record<string, number>;
  inputTokens: number;
  outputTokens: number;
  cacheHits: number;
}
interface Usage {
  days: Array<{ day: string; models: ModelUsage[] }>;
}
interface ProvidersBody {
  data: Array<{ id: string; keys?: Array<{ position: number; anonymous?: true; usage?: Usage }> }>;
}

/** A key of the provider's own shape, different for each `n`. */
const keyOf = (provider: string, n: number): string => {
  const sample = testKeys[provider] as string;
  return `${sample.slice(0, -4)}${String(n).padStart(4, '0')}`;
};

const today = (at = Date.now()): string => new Date(at).toISOString().slice(0, 10);

async function providers(freeway: RunningFreeway, headers: Record<string, string>): Promise<ProvidersBody> {
  const res = await fetch(`${freeway.url}/v1/providers`, { headers });
  expect(res.status).to.equal(200);
  return (await res.json()) as ProvidersBody;
}

/** The `usage` of the keys of one provider, by position. */
async function usageOf(freeway: RunningFreeway, provider: string, headers: Record<string, string>): Promise<Array<Usage | undefined>> {
  const body = await providers(freeway, headers);
  return (body.data.find((entry) => entry.id === provider)?.keys ?? []).map((entry) => entry.usage);
}

async function post(freeway: RunningFreeway, path: string, body: unknown, headers: Record<string, string>): Promise<Response> {
  return fetch(`${freeway.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
}

const hi = [{ role: 'user', content: 'Hi' }];

describe('usage per key in GET /v1/providers', function () {
  this.timeout(20_000);
  let upstream: FakeUpstream;
  let freeway: RunningFreeway;

  before(async function () {
    upstream = await startUpstream();
    freeway = await startFreeway({ env: { GROQ_BASE_URL: upstream.url, MISTRAL_BASE_URL: upstream.url, OVHCLOUD_BASE_URL: upstream.url } });
  });
  after(async function () {
    await freeway?.close();
    await upstream?.close();
  });
  beforeEach(function () {
    upstream.handle((req, res) => {
      if (req.path.endsWith('/embeddings')) {
        const input = req.body?.input as string[];
        json(res, 200, { object: 'list', data: input.map((_, index) => ({ object: 'embedding', index, embedding: [1, 2, 3] })), model: 'mistral-embed', usage: { prompt_tokens: 5, total_tokens: 5 } });
      } else openAIText(res, 'Hello there', req);
    });
  });

  it('counts chat completions (streamed and not), Responses, Messages and embeddings, with the tokens the providers reported', async function () {
    const groq = { 'X-Groq-Key': keyOf('groq', 1) };
    const mistral = { 'X-Mistral-Key': keyOf('mistral', 1) };
    expect((await postChat(freeway.url, { model: GROQ, messages: hi }, groq)).status).to.equal(200);
    const streamed = await postChat(freeway.url, { model: GROQ, messages: hi, stream: true }, groq);
    expect(streamed.status).to.equal(200);
    expect((await post(freeway, '/v1/responses', { model: GROQ, input: 'Hi' }, groq)).status).to.equal(200);
    const messages = await post(freeway, '/v1/messages', { model: GROQ, max_tokens: 64, messages: hi }, { ...groq, 'anthropic-version': '2023-06-01' });
    expect(messages.status, await messages.clone().text()).to.equal(200);
    const embedded = await post(freeway, '/v1/embeddings', { model: MISTRAL_EMBED, input: ['one', 'two'] }, mistral);
    expect(embedded.status, await embedded.clone().text()).to.equal(200);

    const [groqUsage] = await usageOf(freeway, 'groq', groq);
    // The fake upstream reports 7 tokens in and 3 out for each answer.
    expect(groqUsage).to.deep.equal({
      days: [{ day: today(), models: [{ model: GROQ, requests: 4, answers: 4, failures: {}, inputTokens: 28, outputTokens: 12, cacheHits: 0 }] }],
    });
    const [mistralUsage] = await usageOf(freeway, 'mistral', mistral);
    expect(mistralUsage).to.deep.equal({
      days: [{ day: today(), models: [{ model: MISTRAL_EMBED, requests: 1, answers: 1, failures: {}, inputTokens: 5, outputTokens: 0, cacheHits: 0 }] }],
    });
  });

  it('counts failures by kind against the key that failed, and the answer against the key that answered', async function () {
    const first = keyOf('groq', 2);
    const second = keyOf('groq', 3);
    upstream.handle((req, res) => {
      if (req.headers.authorization === `Bearer ${first}`) openAIError(res, 429, 'Rate limit reached for requests');
      else openAIText(res, 'Hello', req);
    });
    const headers = { 'X-Groq-Key': `${first},${second}` };
    const reply = await postChat(freeway.url, { model: GROQ, messages: hi }, headers);
    expect(reply.status, reply.text).to.equal(200);
    const [failed, answered] = await usageOf(freeway, 'groq', headers);
    expect(failed?.days[0]?.models).to.deep.equal([{ model: GROQ, requests: 1, answers: 0, failures: { rate_limited: 1 }, inputTokens: 0, outputTokens: 0, cacheHits: 0 }]);
    expect(answered?.days[0]?.models).to.deep.equal([{ model: GROQ, requests: 1, answers: 1, failures: {}, inputTokens: 7, outputTokens: 3, cacheHits: 0 }]);
  });

  it('a key the provider refused: its request and its failure, no answer, and the caller told to fix the key', async function () {
    const key = keyOf('groq', 4);
    upstream.handle((_req, res) => openAIError(res, 401, 'Invalid API Key'));
    const reply = await postChat(freeway.url, { model: GROQ, messages: hi }, { 'X-Groq-Key': key });
    expect(reply.status).to.equal(502);
    expect(reply.json.error.type).to.equal('freeway_provider_error');
    expect(reply.json.error.message).to.equal('Provider failed: groq: the provider refused the key (401 Invalid API Key): fix X-Groq-Key');
    const [usage] = await usageOf(freeway, 'groq', { 'X-Groq-Key': key });
    expect(usage?.days[0]?.models).to.deep.equal([{ model: GROQ, requests: 1, answers: 0, failures: { invalid_key: 1 }, inputTokens: 0, outputTokens: 0, cacheHits: 0 }]);
  });

  it('is shown only to a caller who sends that key: another key sees none of it, no key header shows no keys', async function () {
    const used = { 'X-Groq-Key': keyOf('groq', 5) };
    expect((await postChat(freeway.url, { model: GROQ, messages: hi }, used)).status).to.equal(200);
    expect((await usageOf(freeway, 'groq', used))[0]?.days[0]?.models[0]?.requests).to.equal(1);
    expect(await usageOf(freeway, 'groq', { 'X-Groq-Key': keyOf('groq', 6) })).to.deep.equal([{ days: [] }]);
    const anonymous = await providers(freeway, {});
    expect(anonymous.data.find((entry) => entry.id === 'groq')).to.not.have.property('keys');
    expect(JSON.stringify(anonymous)).to.not.include('"usage"');
  });

  it('calls without a key are nobody\'s usage: not counted, and their entry has none', async function () {
    const headers = { 'X-Ovhcloud-Key': 'anonymous' };
    const reply = await postChat(freeway.url, { model: 'free:auto', messages: hi }, headers);
    expect(reply.status, reply.text).to.equal(200);
    expect(reply.headers.get('x-freeway-provider')).to.equal('ovhcloud');
    const body = await providers(freeway, headers);
    const [entry] = body.data.find((provider) => provider.id === 'ovhcloud')?.keys ?? [];
    expect(entry).to.include({ position: 1, anonymous: true });
    expect(entry).to.not.have.property('usage');
  });

  it('keeps no content: the prompt and the answer are nowhere in what is shown', async function () {
    const headers = { 'X-Groq-Key': keyOf('groq', 7) };
    upstream.handle((req, res) => openAIText(res, 'a-secret-answer-text', req));
    expect((await postChat(freeway.url, { model: GROQ, messages: [{ role: 'user', content: 'a-secret-prompt-text' }] }, headers)).status).to.equal(200);
    const shown = JSON.stringify(await providers(freeway, headers));
    expect(shown).to.include('"requests":1');
    expect(shown).to.not.include('secret');
  });
});

describe('usage per key: seven UTC days, bounded, and USAGE=off', function () {
  this.timeout(20_000);
  let upstream: FakeUpstream;
  before(async function () {
    upstream = await startUpstream();
  });
  after(async function () {
    await upstream?.close();
  });

  it('shows today and the six days before, newest first; a day seven days old is gone', async function () {
    let clock = Date.parse('2026-11-20T12:00:00Z');
    const freeway = await startFreeway({ env: { GROQ_BASE_URL: upstream.url }, now: () => clock });
    try {
      const headers = { 'X-Groq-Key': keyOf('groq', 10) };
      expect((await postChat(freeway.url, { model: GROQ, messages: hi }, headers)).status).to.equal(200);
      clock += DAY_MS;
      expect((await postChat(freeway.url, { model: GROQ, messages: hi }, headers)).status).to.equal(200);
      expect((await postChat(freeway.url, { model: GROQ, messages: hi }, headers)).status).to.equal(200);
      const [twoDays] = await usageOf(freeway, 'groq', headers);
      expect(twoDays?.days.map((day) => [day.day, day.models[0]?.requests])).to.deep.equal([
        ['2026-11-21', 2],
        ['2026-11-20', 1],
      ]);
      clock += 5 * DAY_MS;
      expect((await usageOf(freeway, 'groq', headers))[0]?.days.map((day) => day.day)).to.deep.equal(['2026-11-21', '2026-11-20']);
      clock += DAY_MS;
      expect((await usageOf(freeway, 'groq', headers))[0]?.days.map((day) => day.day)).to.deep.equal(['2026-11-21']);
    } finally {
      await freeway.close();
    }
  });

  it('USAGE_MAX_RECORDS bounds memory: past it the least recently written record goes', async function () {
    const freeway = await startFreeway({ env: { GROQ_BASE_URL: upstream.url, USAGE_MAX_RECORDS: '2' } });
    try {
      const keys = [1, 2, 3].map((n) => ({ 'X-Groq-Key': keyOf('groq', 20 + n) }));
      for (const headers of keys) {
        expect((await postChat(freeway.url, { model: GROQ, messages: hi }, headers)).status).to.equal(200);
        // Each its own write: the counts of one request reach the store together.
        await usageOf(freeway, 'groq', headers);
      }
      const [oldest, middle, newest] = await Promise.all(keys.map(async (headers) => (await usageOf(freeway, 'groq', headers))[0]));
      expect(oldest).to.deep.equal({ days: [] });
      expect(middle?.days[0]?.models[0]?.requests).to.equal(1);
      expect(newest?.days[0]?.models[0]?.requests).to.equal(1);
    } finally {
      await freeway.close();
    }
  });

  it('USAGE=off counts nothing and shows no usage', async function () {
    const freeway = await startFreeway({ env: { GROQ_BASE_URL: upstream.url, USAGE: 'off' } });
    try {
      const headers = { 'X-Groq-Key': keyOf('groq', 30) };
      expect((await postChat(freeway.url, { model: GROQ, messages: hi }, headers)).status).to.equal(200);
      const body = await providers(freeway, headers);
      const entry = body.data.find((provider) => provider.id === 'groq')?.keys?.[0];
      expect(entry?.position).to.equal(1);
      expect(entry).to.not.have.property('usage');
    } finally {
      await freeway.close();
    }
  });

  it('USAGE accepts on or off only, naming the setting', async function () {
    try {
      await startFreeway({ env: { USAGE: 'maybe' } });
      expect.fail('started');
    } catch (error) {
      expect(String(error)).to.match(/USAGE must be one of on, off/);
    }
  });
});
