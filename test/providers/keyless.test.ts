/**
 * `X-Freeway-Keyless: on`: one header that asks every provider documenting calls without a key
 * for them. The keyless providers are found among the discovered plugins, never named here; each
 * is played by a fake upstream on 127.0.0.1 that answers without an Authorization header.
 */
import { expect } from 'chai';
import type { ProviderPlugin } from '../../providers/types.ts';
import { expectError } from '../support/errors.ts';
import { startFreeway, type RunningFreeway } from '../support/freeway.ts';
import { getHealth, hello, postChat } from '../support/http.ts';
import { keyHeaders, keylessOffer } from '../support/keys.ts';
import { providerPlugins } from '../support/plugins.ts';
import { openAIError, openAIText, startUpstream, type FakeUpstream, type SeenRequest } from '../support/upstream.ts';

const plugins = await providerPlugins();
const keyless = plugins.filter((plugin) => plugin.anonymous !== undefined);
const keyed = plugins.find((plugin) => plugin.anonymous === undefined && plugin.tier.tier !== 'paid only') as ProviderPlugin;
const KEYLESS = { 'X-Freeway-Keyless': 'on' };

/** The provider a fake upstream request was for: every plugin's base URL is `<upstream>/<id>`. */
const providerOf = (request: SeenRequest): string => request.path.split('/')[1] ?? '';
const chatCalls = (upstream: FakeUpstream, id?: string): SeenRequest[] =>
  upstream.requests.filter((request) => request.path.endsWith('/chat/completions') && (id === undefined || providerOf(request) === id));

describe('X-Freeway-Keyless: every keyless provider with one header', function () {
  this.timeout(60_000);
  let upstream: FakeUpstream;
  let freeway: RunningFreeway | undefined;

  beforeEach(async () => {
    upstream = await startUpstream((req, res) => openAIText(res, `${providerOf(req)} answered ${req.headers.authorization === undefined ? 'without' : 'with'} a key`, req));
  });
  afterEach(async () => {
    await freeway?.close();
    freeway = undefined;
    await upstream.close();
  });

  const start = async (env: Record<string, string> = {}): Promise<RunningFreeway> => {
    const bases = Object.fromEntries(plugins.map((plugin) => [`${plugin.id.toUpperCase()}_BASE_URL`, `${upstream.url}/${plugin.id}`]));
    freeway = await startFreeway({ env: { ...bases, ANONYMOUS_PER_MINUTE: '1000', ...env } });
    return freeway;
  };
  const send = (url: string, body: unknown, headers: Record<string, string>): Promise<Response> =>
    fetch(`${url}/v1/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });

  it('there are at least two keyless providers, each with limits, a privacy note and a dated source', () => {
    expect(keyless.map((plugin) => plugin.id).length, keyless.map((plugin) => plugin.id).join(', ')).to.be.at.least(2);
    for (const plugin of keyless) {
      expect(plugin.anonymous?.limits, plugin.id).to.be.a('string').and.not.equal('');
      expect(plugin.anonymous?.privacy, plugin.id).to.be.a('string').and.not.equal('');
      expect(plugin.anonymous?.source, plugin.id).to.match(/^https:\/\//);
      expect(plugin.anonymous?.checked, plugin.id).to.match(/^\d{4}-\d{2}-\d{2}$/);
    }
  });

  it('answers free:auto from loopback, whole and streamed, with no Authorization upstream', async () => {
    const { url } = await start();
    const whole = await postChat(url, hello('free:auto'), KEYLESS);
    expect(whole.status, whole.text).to.equal(200);
    expect(keyless.map((plugin) => plugin.id)).to.include(whole.headers.get('x-freeway-provider'));
    expect(whole.json.choices[0].message.content).to.match(/answered without a key$/);
    const streamed = await postChat(url, hello('free:auto', { stream: true }), { 'x-freeway-keyless': 'ON' });
    expect(streamed.status, streamed.text).to.equal(200);
    expect(streamed.text).to.include('without');
    expect(streamed.text.trimEnd().endsWith('data: [DONE]')).to.equal(true);
    for (const call of chatCalls(upstream)) expect(call.headers.authorization, providerOf(call)).to.equal(undefined);
  });

  it('fails over between keyless providers: a 429 from one, the answer from another', async () => {
    const { url } = await start();
    const first = await postChat(url, hello('free:auto'), KEYLESS);
    const busy = first.headers.get('x-freeway-provider') as string;
    upstream.handle((req, res) => (providerOf(req) === busy ? openAIError(res, 429, 'Too many requests from your address') : openAIText(res, `${providerOf(req)} answered`, req)));
    const next = await postChat(url, hello('free:auto'), KEYLESS);
    expect(next.status, next.text).to.equal(200);
    expect(next.headers.get('x-freeway-provider')).to.not.equal(busy);
    expect(keyless.map((plugin) => plugin.id)).to.include(next.headers.get('x-freeway-provider'));
    const health = await getHealth(url, KEYLESS);
    expect(health.providers[busy]).to.deep.include({ state: 'rate_limited', anonymous: true });
  });

  it('a provider whose key the request carries uses the key; the others are asked without one', async () => {
    const { url } = await start();
    const withKey = keyless[0] as ProviderPlugin;
    const pinned = await postChat(url, hello(`${withKey.id}/${withKey.models[0]?.id}`), { ...KEYLESS, ...keyHeaders(withKey.id) });
    expect(pinned.status, pinned.text).to.equal(200);
    expect(pinned.json.choices[0].message.content).to.equal(`${withKey.id} answered with a key`);
    const other = keyless[1] as ProviderPlugin;
    const answer = await postChat(url, hello(`${other.id}/${other.models[0]?.id}`), { ...KEYLESS, ...keyHeaders(withKey.id) });
    expect(answer.json.choices[0].message.content).to.equal(`${other.id} answered without a key`);
  });

  const offer = (): string => keylessOffer(keyless.map((plugin) => plugin.name));

  it('`off`, or no header, asks nothing: a 401 naming the key headers, no call; with no header it offers the keyless providers', async () => {
    const { url } = await start();
    const off = await expectError(await send(url, hello('free:auto'), { 'X-Freeway-Keyless': 'off' }), 401, 'authentication_error');
    expect(off.message).to.match(/^No provider key for free:auto\. Send one of: [^ ]+(, [^ ]+)*\.$/);
    const none = await expectError(await send(url, hello('free:auto'), {}), 401, 'authentication_error');
    expect(none.message).to.equal(off.message + offer());
    for (const plugin of keyless) expect(off.message).to.include(plugin.header);
    expect(chatCalls(upstream)).to.have.length(0);
  });

  it('the 401 offers keyless calls only to a caller who may make them, and only for a model they serve', async () => {
    const { url } = await start();
    const outsider = await expectError(await send(url, hello('free:auto'), { 'X-Forwarded-For': '203.0.113.7' }), 401, 'authentication_error');
    expect(outsider.message).to.not.include('X-Freeway-Keyless');
    const inside = await expectError(await send(url, hello('free:auto'), { 'X-Forwarded-For': '192.168.1.20' }), 401, 'authentication_error');
    expect(inside.message.endsWith(offer())).to.equal(true);
    const keyedModel = await expectError(await send(url, hello(`${keyed.id}/${keyed.models[0]?.id}`), {}), 401, 'authentication_error');
    expect(keyedModel.message).to.equal(`${keyed.id}/${keyed.models[0]?.id} needs the ${keyed.header} header.`);
    await freeway?.close();
    const { url: closed } = await start({ ANONYMOUS: 'off' });
    const off = await expectError(await send(closed, hello('free:auto'), {}), 401, 'authentication_error');
    expect(off.message).to.match(/^No provider key for free:auto\. Send one of: [^ ]+(, [^ ]+)*\.$/);
  });

  for (const value of ['yes', 'true', '1', 'on, off', 'anonymous']) {
    it(`X-Freeway-Keyless: ${value} is a 400 naming the header, with no call`, async () => {
      const { url } = await start();
      const res = await send(url, hello('free:auto'), { 'X-Freeway-Keyless': value });
      await expectError(res, 400, 'invalid_request_error', 'X-Freeway-Keyless must be `on` or `off`.');
      expect(upstream.requests).to.have.length(0);
    });
  }

  it('ANONYMOUS=off: a 403 naming the setting, and no call', async () => {
    const { url } = await start({ ANONYMOUS: 'off' });
    const res = await send(url, hello('free:auto'), KEYLESS);
    await expectError(res, 403, 'permission_error', 'X-Freeway-Keyless: calls without a key are turned off on this Freeway (ANONYMOUS=off). Send provider keys in their X-<Provider>-Key headers.');
    expect(upstream.requests).to.have.length(0);
  });

  it('ANONYMOUS=local (the default): a caller from outside gets a 403 naming the setting; a private address is served', async () => {
    const { url } = await start();
    const outsider = await send(url, hello('free:auto'), { ...KEYLESS, 'X-Forwarded-For': '203.0.113.7' });
    await expectError(
      outsider,
      403,
      'permission_error',
      "X-Freeway-Keyless: calls without a key spend this Freeway's own allowance at the providers, and are only for callers on its machine or private network (ANONYMOUS=local). Send provider keys in their X-<Provider>-Key headers.",
    );
    expect(upstream.requests).to.have.length(0);
    const inside = await postChat(url, hello('free:auto'), { ...KEYLESS, 'X-Forwarded-For': '192.168.1.20' });
    expect(inside.status, inside.text).to.equal(200);
    // An outsider whose keys cover every keyless provider asks for no keyless call.
    const covered = await postChat(url, hello('free:auto'), { ...KEYLESS, ...keyHeaders(...keyless.map((plugin) => plugin.id)), 'X-Forwarded-For': '203.0.113.7' });
    expect(covered.status, covered.text).to.equal(200);
  });

  it('ANONYMOUS_PER_MINUTE counts each request once, whatever the number of keyless providers it may reach', async () => {
    const { url } = await start({ ANONYMOUS_PER_MINUTE: '2' });
    upstream.handle((req, res) => (providerOf(req) === keyless[0]?.id ? openAIError(res, 503, 'overloaded') : openAIText(res, 'ok', req)));
    for (let i = 0; i < 2; i++) expect((await postChat(url, hello('free:auto'), { ...KEYLESS, 'X-Forwarded-For': '10.0.0.9' })).status).to.equal(200);
    const third = await send(url, hello('free:auto'), { ...KEYLESS, 'X-Forwarded-For': '10.0.0.9' });
    const reply = await expectError(third, 429, 'rate_limit_error');
    expect(reply.message).to.match(/Calls without a key are limited to 2 a minute per client \(ANONYMOUS_PER_MINUTE\)\.$/);
  });

  it('GET /v1/models with the header lists the keyless models and no model of a provider without a key', async () => {
    const { url } = await start();
    const listed = (await (await fetch(`${url}/v1/models`, { headers: KEYLESS })).json()) as { data: Array<{ id: string; available?: boolean }> };
    const available = listed.data.filter((object) => object.available !== false).map((object) => object.id);
    for (const plugin of keyless) {
      const model = plugin.models.find((spec) => !spec.deprecated) as ProviderPlugin['models'][number];
      expect(available, plugin.id).to.include(`${plugin.id}/${model.id}`);
    }
    expect(available.some((id) => id.startsWith(`${keyed.id}/`)), `${keyed.id} has no key here`).to.equal(false);
    expect(available).to.include('free:auto');
  });

  it('GET /v1/providers shows each keyless provider\'s limits and privacy note', async () => {
    const { url } = await start();
    const providers = (await (await fetch(`${url}/v1/providers`, { headers: KEYLESS })).json()) as { data: Array<{ id: string; anonymous: { limits: string; privacy: string } | null }> };
    for (const plugin of keyless) {
      const entry = providers.data.find((provider) => provider.id === plugin.id);
      expect(entry?.anonymous, plugin.id).to.deep.include({ limits: plugin.anonymous?.limits, privacy: plugin.anonymous?.privacy });
    }
    expect(providers.data.find((provider) => provider.id === keyed.id)?.anonymous).to.equal(null);
  });

  it('with no network, the message says this machine could not reach the providers, and to check the network or DNS', async () => {
    // `.invalid` never resolves (RFC 2606): what a machine without network or DNS meets.
    const bases = Object.fromEntries(keyless.map((plugin) => [`${plugin.id.toUpperCase()}_BASE_URL`, `http://${plugin.id}.invalid`]));
    freeway = await startFreeway({ env: { ...bases, ANONYMOUS_PER_MINUTE: '1000' } });
    const res = await send(freeway.url, hello('free:auto'), KEYLESS);
    const reply = await expectError(res, 502, 'freeway_all_providers_failed');
    expect(reply.message).to.match(/^All providers failed: /);
    for (const plugin of keyless) expect(reply.message).to.match(new RegExp(`${plugin.id}[^;]*: connection error \\((ENOTFOUND|EAI_AGAIN)\\): this machine could not look the provider up`));
    expect(reply.message.endsWith('. No provider could be reached from this machine: check its network and DNS')).to.equal(true);
  });

  it('keeps a conversation on the keyless model that answered its last turn', async () => {
    const { url } = await start({ ROUTING: 'quality', STICKY: 'on' });
    const first = { model: 'free:auto', messages: [{ role: 'user', content: 'Plan a trip to Lyon.' }] };
    const one = await postChat(url, first, KEYLESS);
    expect(one.status, one.text).to.equal(200);
    const model = one.headers.get('x-freeway-model');
    for (let turn = 0; turn < 3; turn++) {
      const next = { model: 'free:auto', messages: [...first.messages, { role: 'assistant', content: one.json.choices[0].message.content }, { role: 'user', content: `And day ${turn + 2}?` }] };
      const answer = await postChat(url, next, KEYLESS);
      expect(answer.headers.get('x-freeway-model'), `turn ${turn + 2}`).to.equal(model);
    }
  });

  it('free:auto orders the keyless models by quality: the best scored keyless model answers first', async () => {
    const { url } = await start({ ROUTING: 'quality' });
    const scored = keyless.flatMap((plugin) => plugin.models.filter((spec) => !spec.deprecated && spec.quality).map((spec) => ({ id: `${plugin.id}/${spec.id}`, score: spec.quality?.score ?? 0 })));
    const best = scored.reduce((top, entry) => (entry.score > top.score ? entry : top));
    const answer = await postChat(url, hello('free:auto'), KEYLESS);
    expect(answer.status, answer.text).to.equal(200);
    const within = scored.filter((entry) => best.score - entry.score <= 2).map((entry) => entry.id);
    expect(within, 'the answer came from a model within the quality band of the best').to.include(answer.headers.get('x-freeway-model'));
  });
});
