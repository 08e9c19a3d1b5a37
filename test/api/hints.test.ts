import { expect } from 'chai';
import { buildCatalog } from '../../catalog/catalog.ts';
import { suggestModel } from '../../catalog/suggest.ts';
import { providerPlugins, startFreeway, type RunningFreeway } from '../support/freeway.ts';
import { hello, postChat } from '../support/http.ts';
import { testKeys } from '../support/keys.ts';

describe('errors that say what to do', () => {
  let freeway: RunningFreeway;
  before(async () => {
    freeway = await startFreeway();
  });
  after(() => freeway.close());

  const unknownModel = async (model: string): Promise<{ status: number; message: string; type: string }> => {
    const res = await postChat(freeway.url, hello(model), { 'X-Groq-Key': testKeys.groq as string });
    return { status: res.status, message: res.json.error.message, type: res.json.error.type };
  };

  it('a model id without its provider prefix: did you mean {provider}/{model}?', async () => {
    expect(await unknownModel('llama-3.3-70b-versatile')).to.deep.equal({
      status: 404,
      type: 'invalid_request_error',
      message: 'Unknown model: llama-3.3-70b-versatile. Did you mean `groq/llama-3.3-70b-versatile`? GET /v1/models lists the models.',
    });
  });

  it('a near miss, another case, or another provider\'s prefix gets the closest id', async () => {
    expect((await unknownModel('groq/llama-3.3-70b-versatil')).message).to.include('Did you mean `groq/llama-3.3-70b-versatile`?');
    expect((await unknownModel('GROQ/Llama-3.3-70B-Versatile')).message).to.include('Did you mean `groq/llama-3.3-70b-versatile`?');
    expect((await unknownModel('openai/llama-3.3-70b-versatile')).message).to.include('Did you mean `groq/llama-3.3-70b-versatile`?');
    expect((await unknownModel('free:fsat')).message).to.include('Did you mean `free:fast`?');
    const models = await fetch(`${freeway.url}/v1/models/groq/llama-3.3-70b-versatil`);
    expect(models.status).to.equal(404);
    expect(((await models.json()) as { error: { message: string } }).error.message).to.include('Did you mean `groq/llama-3.3-70b-versatile`?');
  });

  it('nothing close: no suggestion', async () => {
    expect((await unknownModel('gpt-4o')).message).to.equal('Unknown model: gpt-4o. GET /v1/models lists the models.');
  });

  it('a huge model id costs little: no suggestion is searched beyond 200 characters', async () => {
    const catalog = buildCatalog(await providerPlugins());
    const huge = 'x'.repeat(1024 * 1024);
    const started = performance.now();
    for (let i = 0; i < 100; i++) expect(suggestModel(catalog, huge)).to.equal(undefined);
    // 200 characters, the longest searched, against every id.
    const long = `groq/${'llama-3.3-70b-versatile'.repeat(8)}`.slice(0, 200);
    for (let i = 0; i < 100; i++) suggestModel(catalog, long);
    expect(performance.now() - started).to.be.below(2000);
    const res = await postChat(freeway.url, hello(`groq/${'y'.repeat(215)}`), { 'X-Groq-Key': testKeys.groq as string });
    expect(res.status).to.equal(404);
    expect(res.json.error.message).to.not.include('Did you mean');
    expect(res.json.error.message.length).to.be.below(1000);
  });

  it('/chat/completions without /v1 (or with /v1 twice) says where the API is', async () => {
    const bare = await fetch(`${freeway.url}/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    expect(bare.status).to.equal(404);
    expect(((await bare.json()) as { error: { message: string } }).error.message).to.equal(
      "Unknown route: POST /chat/completions. Freeway serves its API under /v1: use /v1/chat/completions (set your client's base URL to http://<host>:<port>/v1).",
    );
    const doubled = await fetch(`${freeway.url}/v1/v1/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    expect(((await doubled.json()) as { error: { message: string } }).error.message).to.equal(
      'Unknown route: POST /v1/v1/chat/completions. Freeway serves its API under /v1: use /v1/chat/completions.',
    );
    const other = await fetch(`${freeway.url}/v2/foo`);
    expect(((await other.json()) as { error: { message: string } }).error.message).to.equal(
      "Unknown route: GET /v2/foo. Freeway serves GET /v1/models (the models), GET /health (the providers' health) and the APIs under /v1; its README describes them.",
    );
  });

  for (const [header, name] of [
    ['Authorization', 'Authorization'],
    ['x-api-key', 'x-api-key'],
  ] as const) {
    it(`a key only in ${name} is told about X-<Provider>-Key headers, and the value is never repeated`, async () => {
      const secret = header === 'Authorization' ? `Bearer ${testKeys.groq}` : 'myverysecretvalue123456';
      const res = await postChat(freeway.url, hello('free:auto'), { [header]: secret });
      expect(res.status).to.equal(401);
      expect(res.json.error.type).to.equal('authentication_error');
      expect(res.json.error.message).to.include(
        `Freeway does not read provider keys from ${name}: send each provider's key in its own header, X-<Provider>-Key (for example X-Groq-Key)`,
      );
      expect(res.text).to.not.include(testKeys.groq);
      expect(res.text).to.not.include('myverysecretvalue123456');
    });
  }

  it('no hint when a provider key header was sent too', async () => {
    const res = await postChat(freeway.url, hello('free:vision'), { Authorization: 'Bearer unused', 'X-Cerebras-Key': testKeys.cerebras as string });
    expect(res.status).to.equal(401);
    expect(res.json.error.message).to.not.include('does not read provider keys');
  });
});
