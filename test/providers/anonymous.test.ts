/**
 * Calls without a key: a provider whose plugin declares anonymous access takes the header value
 * `anonymous`, and the operator decides who may use the instance's address (ANONYMOUS,
 * ANONYMOUS_PER_MINUTE). The provider is found among the discovered plugins, never named here.
 */
import { expect } from 'chai';
import type { ProviderPlugin } from '../../providers/types.ts';
import { ANONYMOUS } from '../../server/core/keys.ts';
import { createRedactor } from '../../server/core/redact.ts';
import { createMemoryHealthStore } from '../../server/routing/health-policy.ts';
import { createKeyHasher } from '../../server/state/key-hash.ts';
import { withLocalAnonymous } from '../../server/state/stores.ts';
import { expectError } from '../support/errors.ts';
import { startFreeway, type RunningFreeway } from '../support/freeway.ts';
import { getHealth, hello, postChat } from '../support/http.ts';
import { keyHeaders } from '../support/keys.ts';
import { providerPlugins } from '../support/plugins.ts';
import { openAIError, openAIText, startUpstream, type FakeUpstream } from '../support/upstream.ts';

const plugins = await providerPlugins();
const open = plugins.find((plugin) => plugin.anonymous !== undefined) as ProviderPlugin;
const closed = plugins.find((plugin) => plugin.anonymous === undefined && plugin.tier.tier !== 'paid only') as ProviderPlugin;
const model = open.models.find((spec) => !spec.deprecated) as ProviderPlugin['models'][number];

describe('calls without a key', function () {
  this.timeout(20_000);
  let upstream: FakeUpstream;
  let freeway: RunningFreeway | undefined;

  beforeEach(async () => {
    upstream = await startUpstream((req, res) => openAIText(res, `answered ${req.headers.authorization === undefined ? 'without' : 'with'} a key`));
  });
  afterEach(async () => {
    await freeway?.close();
    freeway = undefined;
    await upstream.close();
  });

  const start = async (env: Record<string, string> = {}): Promise<RunningFreeway> => {
    const bases = Object.fromEntries(plugins.map((plugin) => [`${plugin.id.toUpperCase()}_BASE_URL`, `${upstream.url}/${plugin.id}`]));
    freeway = await startFreeway({ env: { ...bases, ...env } });
    return freeway;
  };
  const anonymous = (value = 'anonymous'): Record<string, string> => ({ [open.header]: value });
  const from = (address: string): Record<string, string> => ({ 'X-Forwarded-For': address });
  /** The raw answer of a chat completion, for the error assertions. */
  const send = (url: string, body: unknown, headers: Record<string, string>): Promise<Response> =>
    fetch(`${url}/v1/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });

  it(`the plugins declare it where the provider documents it (${open.id}), with limits, privacy and a dated source`, () => {
    expect(open.anonymous?.limits).to.be.a('string').and.not.equal('');
    expect(open.anonymous?.privacy).to.be.a('string').and.not.equal('');
    expect(open.anonymous?.source).to.match(/^https:\/\//);
  });

  it('answers free:auto and a pinned model from loopback, any letter case, and sends no Authorization upstream', async () => {
    const { url } = await start();
    const auto = await postChat(url, hello('free:auto'), anonymous('Anonymous'));
    expect(auto.status, auto.text).to.equal(200);
    expect(auto.json.choices[0].message.content).to.equal('answered without a key');
    expect(auto.headers.get('x-freeway-provider')).to.equal(open.id);
    const pinned = await postChat(url, hello(`${open.id}/${model.id}`), anonymous('ANONYMOUS'));
    expect(pinned.status, pinned.text).to.equal(200);
    expect(pinned.headers.get('x-freeway-model')).to.equal(`${open.id}/${model.id}`);
    const calls = upstream.requests.filter((request) => request.path.startsWith(`/${open.id}/`));
    expect(calls).to.have.length(2);
    for (const call of calls) expect(call.headers.authorization, 'no key, no placeholder').to.equal(undefined);
  });

  it('without the header the provider is left out, as every provider without a key is', async () => {
    const { url } = await start();
    const res = await send(url, hello(`${open.id}/${model.id}`), {});
    await expectError(res, 401, 'authentication_error', `${open.id}/${model.id} needs the ${open.header} header.`);
    expect(upstream.requests.filter((request) => request.path.startsWith(`/${open.id}/`))).to.have.length(0);
  });

  it('is a 400 naming the header for a provider without calls without a key, and inside a key pool', async () => {
    const { url } = await start();
    const refused = await send(url, hello('free:auto'), { [closed.header]: 'anonymous' });
    await expectError(refused, 400, 'invalid_request_error', `${closed.header}: \`anonymous\` asks for calls without a key, which ${closed.name} does not offer: send a ${closed.name} key.`);
    const pooled = await send(url, hello('free:auto'), { [open.header]: 'k-0123456789abcdef,anonymous' });
    await expectError(pooled, 400, 'invalid_request_error', `${open.header}: \`anonymous\` asks for calls without a key, and must be sent alone, not in a key pool.`);
    expect(upstream.requests).to.have.length(0);
  });

  it('ANONYMOUS=off: a 403 naming the setting, no call', async () => {
    const { url } = await start({ ANONYMOUS: 'off' });
    const res = await send(url, hello('free:auto'), anonymous());
    await expectError(res, 403, 'permission_error', `${open.header}: calls without a key are turned off on this Freeway (ANONYMOUS=off). Send a key in ${open.header}.`);
    expect(upstream.requests).to.have.length(0);
  });

  it('ANONYMOUS=local (the default): callers on private addresses yes, others a 403 naming the setting', async () => {
    const { url } = await start();
    const privateCaller = await postChat(url, hello('free:auto'), { ...anonymous(), ...from('10.1.2.3') });
    expect(privateCaller.status, privateCaller.text).to.equal(200);
    const outsider = await send(url, hello('free:auto'), { ...anonymous(), ...from('203.0.113.7') });
    await expectError(
      outsider,
      403,
      'permission_error',
      `${open.header}: calls without a key spend this Freeway's own allowance at the provider, and are only for callers on its machine or private network (ANONYMOUS=local). Send a key in ${open.header}.`,
    );
    // The same outsider with a key of its own is served as ever.
    const keyed = await postChat(url, hello('free:auto'), { ...keyHeaders(closed.id), ...from('203.0.113.7') });
    expect(keyed.status, keyed.text).to.equal(200);
  });

  it('ANONYMOUS=on: anyone', async () => {
    const { url } = await start({ ANONYMOUS: 'on' });
    const outsider = await postChat(url, hello('free:auto'), { ...anonymous(), ...from('203.0.113.7') });
    expect(outsider.status, outsider.text).to.equal(200);
  });

  it('ANONYMOUS_PER_MINUTE caps each client: past it a 429 with Retry-After; another client is not held back', async () => {
    const { url } = await start({ ANONYMOUS_PER_MINUTE: '2' });
    for (let i = 0; i < 2; i++) expect((await postChat(url, hello('free:auto'), { ...anonymous(), ...from('10.0.0.5') })).status).to.equal(200);
    const third = await send(url, hello('free:auto'), { ...anonymous(), ...from('10.0.0.5') });
    const reply = await expectError(third, 429, 'rate_limit_error');
    expect(reply.message).to.match(/^Rate limit exceeded\. Retry after (\d+) seconds\. Calls without a key are limited to 2 a minute per client \(ANONYMOUS_PER_MINUTE\)\.$/);
    expect(Number(third.headers.get('retry-after'))).to.be.within(1, 60);
    expect((await postChat(url, hello('free:auto'), { ...anonymous(), ...from('10.0.0.6') })).status).to.equal(200);
    // Requests with a key do not count against it.
    expect((await postChat(url, hello('free:auto'), { ...keyHeaders(closed.id), ...from('10.0.0.5') })).status).to.equal(200);
  });

  it('ANONYMOUS_PER_MINUTE counts only calls that may reach a provider: listings, /v1/providers and its check, and token counts spend none', async () => {
    const { url } = await start({ ANONYMOUS_PER_MINUTE: '2' });
    const caller = { ...anonymous(), ...from('10.0.0.9') };
    for (let i = 0; i < 5; i++) {
      expect((await fetch(`${url}/v1/models`, { headers: caller })).status).to.equal(200);
      expect((await fetch(`${url}/v1/providers`, { headers: caller })).status).to.equal(200);
      expect((await fetch(`${url}/v1/providers?check=1`, { headers: caller })).status).to.equal(200);
      const counted = await fetch(`${url}/v1/messages/count_tokens`, { method: 'POST', headers: { 'content-type': 'application/json', ...caller }, body: JSON.stringify({ model: 'free:auto', messages: [{ role: 'user', content: 'hi' }] }) });
      expect(counted.status).to.equal(200);
    }
    // The two chats of the minute are all still there; the third is refused.
    for (let i = 0; i < 2; i++) expect((await postChat(url, hello('free:auto'), caller)).status).to.equal(200);
    await expectError(await send(url, hello('free:auto'), caller), 429, 'rate_limit_error');
  });

  it('has one health record for the instance, shown in /health and /v1/providers (limits, privacy, no call for ?check=1) and /v1/models', async () => {
    const { url } = await start();
    upstream.handle((_req, res) => openAIError(res, 429, 'Too many requests from your address (anonymous)'));
    const limited = await postChat(url, hello(`${open.id}/${model.id}`), anonymous());
    // Nothing failed, the address only rests, beyond the wait budget: a 429.
    expect(limited.status).to.equal(429);
    // The marker is no key: it stays in the message.
    expect(limited.json.error.message).to.include('(anonymous)');
    const health = await getHealth(url, anonymous());
    expect(health.providers[open.id]).to.deep.include({ state: 'rate_limited', anonymous: true });
    const before = upstream.requests.length;
    const providers = (await (await fetch(`${url}/v1/providers?check=1`, { headers: anonymous() })).json()) as { data: Array<{ id: string; anonymous: unknown; keys?: Array<Record<string, unknown>> }> };
    const entry = providers.data.find((provider) => provider.id === open.id);
    expect(entry?.anonymous).to.deep.include({ limits: open.anonymous?.limits, privacy: open.anonymous?.privacy });
    expect(entry?.keys?.[0]).to.deep.include({ state: 'rate_limited', anonymous: true });
    expect((entry?.keys?.[0]?.check as { status: string }).status).to.equal('not_checkable');
    expect(upstream.requests.length, '?check=1 makes no call').to.equal(before);
    const models = (await (await fetch(`${url}/v1/models`, { headers: anonymous() })).json()) as { data: Array<{ id: string; owned_by: string }> };
    expect(models.data.some((object) => object.id === `${open.id}/${model.id}`)).to.equal(true);
  });

  it('is never hashed and never redacted', () => {
    const hash = createKeyHasher('a secret of sixteen characters');
    expect(hash(open.id, ANONYMOUS)).to.equal(`${open.id}:anonymous`);
    const redact = createRedactor(plugins);
    expect(redact('calls made anonymous here', new Map([[open.id, [ANONYMOUS]]]))).to.equal('calls made anonymous here');
  });

  it("with a shared store (Redis), the record stays in the instance's memory", async () => {
    const shared = createMemoryHealthStore();
    const local = createMemoryHealthStore();
    const store = withLocalAnonymous(shared, local);
    const keyed = createKeyHasher('a secret of sixteen characters')(open.id, 'k-0123456789abcdef');
    await store.record(`${open.id}:anonymous`, { kind: 'failure', reason: '500' }, Date.now());
    await store.record(keyed, { kind: 'failure', reason: '500' }, Date.now());
    expect((await shared.get([`${open.id}:anonymous`, keyed])).map((record) => record?.consecutiveFailures)).to.deep.equal([undefined, 1]);
    expect((await local.get([`${open.id}:anonymous`, keyed])).map((record) => record?.consecutiveFailures)).to.deep.equal([1, undefined]);
    expect((await store.get([keyed, `${open.id}:anonymous`])).map((record) => record?.consecutiveFailures)).to.deep.equal([1, 1]);
    await store.close();
  });
});
