/**
 * What is particular to Kilo AI Gateway, tried as a user would through Freeway's HTTP API against a
 * fake gateway on 127.0.0.1 (KILO_BASE_URL) that plays what Kilo documents: free models without a
 * key, 200 requests an hour per address, then 429; a model list that needs no key and shows the free
 * models of the day; an account's key as a Bearer JWT.
 */
import { expect } from 'chai';
import type { ServerResponse } from 'node:http';
import { expectError } from '../support/errors.ts';
import { startFreeway, type RunningFreeway } from '../support/freeway.ts';
import { getHealth, hello, postChat } from '../support/http.ts';
import { testKeys } from '../support/keys.ts';
import { json, openAIText, openAIToolCall, startUpstream, type FakeUpstream, type SeenRequest } from '../support/upstream.ts';

/** "200 requests per hour per IP" without a key (kilo.ai/docs/gateway/authentication). */
const ANONYMOUS_PER_HOUR = 200;
const KEY = testKeys.kilo as string;

/** One entry of the fake gateway's GET /models, in the OpenRouter shape Kilo relays. */
const listed = (id: string, price: string): unknown => ({
  id,
  context_length: 262144,
  architecture: { input_modalities: ['text'], output_modalities: ['text'] },
  pricing: { prompt: price, completion: price },
  top_provider: { max_completion_tokens: 32768 },
  supported_parameters: ['tools', 'max_tokens'],
});

/** A fake Kilo gateway: keyless calls counted per address and refused past the hourly limit; free models only without a key. */
function kiloGateway(options: { readonly models: readonly unknown[] }): (req: SeenRequest, res: ServerResponse) => void {
  const perAddress = new Map<string, number>();
  return (req, res) => {
    if (req.method === 'GET' && req.path === '/models') return json(res, 200, { data: options.models });
    const keyless = req.headers.authorization === undefined;
    if (!keyless && req.headers.authorization !== `Bearer ${KEY}`) return json(res, 401, { error: { message: 'Invalid token', code: 401 } });
    const model = String(req.body?.model ?? '');
    if (keyless && !model.endsWith(':free')) return json(res, 401, { error: { message: 'Authentication required for paid models', code: 401 } });
    if (keyless) {
      const address = '127.0.0.1';
      const count = (perAddress.get(address) ?? 0) + 1;
      perAddress.set(address, count);
      if (count > ANONYMOUS_PER_HOUR) return json(res, 429, { error: { message: 'Rate limit exceeded', code: 429 } });
    }
    const messages = (req.body?.messages ?? []) as Array<{ role: string }>;
    if (Array.isArray(req.body?.tools) && !messages.some((message) => message.role === 'tool')) return openAIToolCall(res, 'get_weather', '{"city":"Paris"}');
    return openAIText(res, `${model} answered ${keyless ? 'without' : 'with'} a key`, req);
  };
}

const weatherTool = { type: 'function', function: { name: 'get_weather', description: 'Weather of a city', parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } } };

describe('kilo: Kilo AI Gateway as a Freeway user meets it', function () {
  this.timeout(90_000);
  let upstream: FakeUpstream;
  let freeway: RunningFreeway | undefined;

  afterEach(async () => {
    await freeway?.close();
    freeway = undefined;
    await upstream.close();
  });

  const start = async (models: readonly unknown[], env: Record<string, string> = {}): Promise<RunningFreeway> => {
    // Only kilo is asked without a key here (X-Kilo-Key: anonymous); no other provider has a key or a base URL here.
    upstream = await startUpstream(kiloGateway({ models }));
    freeway = await startFreeway({ env: { KILO_BASE_URL: upstream.url, ANONYMOUS_PER_MINUTE: '100000', ...env } });
    return freeway;
  };
  const chatCalls = (): SeenRequest[] => upstream.requests.filter((request) => request.path === '/chat/completions');

  it('without a key: whole and streamed answers, and a tool round trip, with no Authorization upstream', async () => {
    const { url } = await start([]);
    const headers = { 'X-Kilo-Key': 'anonymous' };
    const whole = await postChat(url, hello('free:auto'), headers);
    expect(whole.status, whole.text).to.equal(200);
    expect(whole.headers.get('x-freeway-provider')).to.equal('kilo');
    expect(whole.json.choices[0].message.content).to.match(/:free answered without a key$/);
    const streamed = await postChat(url, hello('free:auto', { stream: true }), headers);
    expect(streamed.status, streamed.text).to.equal(200);
    expect(streamed.text).to.include('without');

    const ask = { model: 'free:tool-use', messages: [{ role: 'user', content: 'Weather in Paris?' }], tools: [weatherTool] };
    const call = await postChat(url, ask, headers);
    expect(call.status, call.text).to.equal(200);
    const toolCall = call.json.choices[0].message.tool_calls[0];
    expect(toolCall.function).to.deep.equal({ name: 'get_weather', arguments: '{"city":"Paris"}' });
    const back = await postChat(url, { ...ask, messages: [...ask.messages, call.json.choices[0].message, { role: 'tool', tool_call_id: toolCall.id, content: '18°C, clear' }] }, headers);
    expect(back.status, back.text).to.equal(200);
    expect(back.json.choices[0].message.content).to.match(/answered without a key$/);
    for (const request of chatCalls()) expect(request.headers.authorization).to.equal(undefined);
  });

  it(`past ${ANONYMOUS_PER_HOUR} keyless requests an hour from the address, the 429 sets kilo's keyless record aside and no further call is made`, async () => {
    const { url } = await start([]);
    for (let i = 0; i < ANONYMOUS_PER_HOUR; i++) {
      const answer = await postChat(url, hello('free:auto'), { 'X-Kilo-Key': 'anonymous' });
      if (answer.status !== 200 || answer.headers.get('x-freeway-provider') !== 'kilo') throw new Error(`request ${i + 1}: ${answer.status} ${answer.text}`);
    }
    const ask = (): Promise<Response> => fetch(`${url}/v1/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json', 'X-Kilo-Key': 'anonymous' }, body: JSON.stringify(hello('free:auto')) });
    // The 201st: Kilo's 429, which Freeway passes on as a rate limit naming kilo and its window.
    const over = await ask();
    const reply = (await over.json()) as { error: { message: string; type: string } };
    expect(over.status, reply.error.message).to.be.oneOf([429, 502]);
    expect(reply.error.message).to.match(/kilo: .*429/);
    const health = await getHealth(url, { 'X-Kilo-Key': 'anonymous' });
    expect(health.providers.kilo).to.deep.include({ state: 'rate_limited', anonymous: true, retryAfter: 60 });
    const calls = chatCalls().length;
    const again = await ask();
    expect(again.status).to.equal(429);
    expect(Number(again.headers.get('retry-after'))).to.be.within(1, 60);
    expect(chatCalls().length, 'the set-aside record is not asked again').to.equal(calls);
  });

  it('the model list, read without a key, decides what keyless calls reach: today\'s free model, never a paid one', async () => {
    const { url } = await start([listed('moonshotai/kimi-k3:free', '0'), listed('anthropic/claude-sonnet-4.6', '0.000003')], { MODELS_LIVE: 'on' });
    const answer = await postChat(url, hello('free:auto'), { 'X-Kilo-Key': 'anonymous' });
    expect(answer.status, answer.text).to.equal(200);
    expect(answer.headers.get('x-freeway-model')).to.equal('kilo/moonshotai/kimi-k3:free');
    const listing = upstream.requests.filter((request) => request.path === '/models');
    expect(listing.length).to.be.at.least(1);
    for (const request of listing) expect(request.headers.authorization, 'the list is read without a key').to.equal(undefined);
    expect(chatCalls().map((request) => request.body?.model)).to.deep.equal(['moonshotai/kimi-k3:free']);
    const models = (await (await fetch(`${url}/v1/models`, { headers: { 'X-Kilo-Key': 'anonymous' } })).json()) as { data: Array<{ id: string; available?: boolean }> };
    const available = models.data.filter((object) => object.available !== false).map((object) => object.id);
    expect(available).to.include('kilo/moonshotai/kimi-k3:free');
  });

  it('with an account key: a Bearer JWT upstream, and a refused key is a 401 row that sets the key aside', async () => {
    const { url } = await start([]);
    const keyed = await postChat(url, hello('kilo/stepfun/step-3.7-flash:free'), { 'X-Kilo-Key': KEY });
    expect(keyed.status, keyed.text).to.equal(200);
    expect(keyed.json.choices[0].message.content).to.equal('stepfun/step-3.7-flash:free answered with a key');
    expect(chatCalls()[0]?.headers.authorization).to.equal(`Bearer ${KEY}`);
    const wrong = 'eyJ0eXAiOiJKV1QiLCJhbGciOiJIUzI1NiJ9.eyJ3cm9uZyI6IktlWTlxUjJ3In0.Zz9Yy8Xx7Ww6Vv5Uu4Tt3Ss2Rr1Qq0';
    const refused = await fetch(`${url}/v1/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json', 'X-Kilo-Key': wrong }, body: JSON.stringify(hello('free:auto')) });
    const reply = await expectError(refused, 502, 'freeway_all_providers_failed');
    expect(reply.message).to.not.include(wrong.slice(0, 20));
    const health = await getHealth(url, { 'X-Kilo-Key': wrong });
    expect(health.providers.kilo).to.deep.include({ state: 'invalid_key' });
  });
});
