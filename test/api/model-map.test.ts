/**
 * MODEL_MAP: the model names an app knows (OpenAI's, say) -> catalog ids or
 * aliases, on every API, with the concrete model in X-Freeway-Model and the
 * name the caller sent in the answer. On /v1/messages ANTHROPIC_MODEL_MAP is
 * read first. Off unless set.
 */
import Anthropic from '@anthropic-ai/sdk';
import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { loadConfig } from '../../server/config/index.ts';
import { providerPlugins, startFreeway, type RunningFreeway } from '../support/freeway.ts';
import { postChat } from '../support/http.ts';
import { keyHeaders } from '../support/keys.ts';
import { openaiClient } from '../support/suite.ts';
import { postResponses } from '../support/responses.ts';
import { currentModels } from '../support/current-models.ts';
import { openAIText, startUpstream, type FakeUpstream } from '../support/upstream.ts';

const [, CEREBRAS_SECOND] = currentModels('cerebras') as [string, string];
const CEREBRAS_FIRST_TOOL_USE = (await providerPlugins())
  .find((plugin) => plugin.id === 'cerebras')
  ?.models.find((model) => !model.deprecated && model.capabilities.includes('tool-use'))?.id as string;

const headers = keyHeaders('cerebras');

function anthropicClient(freeway: RunningFreeway): Anthropic {
  return new Anthropic({ baseURL: freeway.url, apiKey: 'unused', defaultHeaders: headers, maxRetries: 0 });
}

describe('MODEL_MAP', function () {
  let upstream: FakeUpstream;

  before(async function () {
    upstream = await startUpstream((req, res) => openAIText(res, 'Hello there', req));
  });
  after(() => upstream.close());
  beforeEach(() => {
    upstream.requests.length = 0;
  });

  describe(`MODEL_MAP='gpt-4o=free:auto,o3*=cerebras/<second model>,claude-*=cerebras/<second model>'`, function () {
    let freeway: RunningFreeway;
    before(async function () {
      freeway = await startFreeway({
        env: { CEREBRAS_BASE_URL: upstream.url, MODEL_MAP: `gpt-4o=free:auto,o3*=cerebras/${CEREBRAS_SECOND},claude-*=cerebras/${CEREBRAS_SECOND}` },
      });
    });
    after(() => freeway.close());

    it('serves gpt-4o on chat completions, the answer naming gpt-4o and X-Freeway-Model the concrete model', async function () {
      const { data, response } = await openaiClient(freeway, headers).chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'Hi' }] }).withResponse();
      expect(data.model).to.equal('gpt-4o');
      expect(data.choices[0]?.message.content).to.equal('Hello there');
      expect(response.headers.get('x-freeway-model')).to.match(/^cerebras\/[\w.-]+$/);
      expect(upstream.requests[0]?.body?.model).to.equal(response.headers.get('x-freeway-model')?.slice('cerebras/'.length));
    });

    it('serves gpt-4o on the Responses API', async function () {
      const { data, response } = await openaiClient(freeway, headers).responses.create({ model: 'gpt-4o', input: 'Hi' }).withResponse();
      expect(data.model).to.equal('gpt-4o');
      expect(data.output_text).to.equal('Hello there');
      expect(response.headers.get('x-freeway-model')).to.match(/^cerebras\//);
    });

    it('serves gpt-4o on the Messages API, after ANTHROPIC_MODEL_MAP found no match', async function () {
      const { data, response } = await anthropicClient(freeway).messages.create({ model: 'gpt-4o', max_tokens: 50, messages: [{ role: 'user', content: 'Hi' }] }).withResponse();
      expect(data.model).to.equal('gpt-4o');
      expect(response.headers.get('x-freeway-model')).to.match(/^cerebras\//);
      const counted = await anthropicClient(freeway).messages.countTokens({ model: 'gpt-4o', messages: [{ role: 'user', content: 'Hi' }] });
      expect(counted.input_tokens).to.be.greaterThan(0);
    });

    it('globs match the whole name: o3-mini and o3 go to their pinned target', async function () {
      const chat = await postChat(freeway.url, { model: 'o3-mini', messages: [{ role: 'user', content: 'Hi' }] }, headers);
      expect(chat.status, JSON.stringify(chat.json)).to.equal(200);
      expect(chat.headers.get('x-freeway-model')).to.equal(`cerebras/${CEREBRAS_SECOND}`);
      const responses = await postResponses(freeway.url, { model: 'o3', input: 'Hi' }, headers);
      expect(responses.headers.get('x-freeway-model')).to.equal(`cerebras/${CEREBRAS_SECOND}`);
      expect(responses.json.model).to.equal('o3');
    });

    it('on /v1/messages ANTHROPIC_MODEL_MAP (its default sends claude-* to free:tool-use) wins over MODEL_MAP', async function () {
      const { response } = await anthropicClient(freeway).messages.create({ model: 'claude-sonnet-4-6', max_tokens: 50, messages: [{ role: 'user', content: 'Hi' }] }).withResponse();
      // MODEL_MAP would have pinned Cerebras's second model; the alias free:tool-use tries cerebras models in catalog order.
      expect(response.headers.get('x-freeway-model')).to.equal(`cerebras/${CEREBRAS_FIRST_TOOL_USE}`);
      // Where ANTHROPIC_MODEL_MAP does not apply, MODEL_MAP does.
      const chat = await postChat(freeway.url, { model: 'claude-sonnet-4-6', messages: [{ role: 'user', content: 'Hi' }] }, headers);
      expect(chat.headers.get('x-freeway-model')).to.equal(`cerebras/${CEREBRAS_SECOND}`);
    });

    it('a catalog id is used as it is, never mapped', async function () {
      const chat = await postChat(freeway.url, { model: 'cerebras/llama-3.3-70b', messages: [{ role: 'user', content: 'Hi' }] }, headers);
      expect(chat.headers.get('x-freeway-model')).to.equal('cerebras/llama-3.3-70b');
    });

    it('a name that matches no glob is still a 404', async function () {
      const chat = await postChat(freeway.url, { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'Hi' }] }, headers);
      expect(chat.status).to.equal(404);
      expect(chat.json.error.type).to.equal('invalid_request_error');
      expect(chat.json.error.message).to.match(/^Unknown model: gpt-4o-mini/);
      expect(upstream.requests).to.have.length(0);
    });
  });

  describe('unset', function () {
    let freeway: RunningFreeway;
    before(async function () {
      freeway = await startFreeway({ env: { CEREBRAS_BASE_URL: upstream.url } });
    });
    after(() => freeway.close());

    it('is off: gpt-4o is a 404 on chat completions and the Responses API', async function () {
      const chat = await postChat(freeway.url, { model: 'gpt-4o', messages: [{ role: 'user', content: 'Hi' }] }, headers);
      expect(chat.status).to.equal(404);
      expect(chat.json.error.message).to.match(/^Unknown model: gpt-4o/);
      const responses = await postResponses(freeway.url, { model: 'gpt-4o', input: 'Hi' }, headers);
      expect(responses.status).to.equal(404);
      expect(upstream.requests).to.have.length(0);
    });
  });

  it("docs/clients.md's ready-made mapping starts Freeway and sends OpenAI's names where it says", async function () {
    const docs = readFileSync(new URL('../../docs/clients.md', import.meta.url), 'utf8');
    const ready = /<!-- model-map -->\n```sh\nMODEL_MAP='([^']+)' npm start\n```/.exec(docs)?.[1];
    if (ready === undefined) throw new Error('docs/clients.md has no ready-made MODEL_MAP');
    const config = loadConfig({ MODEL_MAP: ready }, await providerPlugins());
    const target = (name: string): string | undefined => config.api.modelMap.find((mapping) => mapping.pattern.test(name))?.target;
    const expected: Record<string, string> = {
      'gpt-4o': 'free:tool-use',
      'gpt-4o-mini': 'free:fast',
      'gpt-4.1': 'free:tool-use',
      'gpt-4.1-mini': 'free:fast',
      'gpt-4.1-nano': 'free:fast',
      'gpt-5': 'free:tool-use',
      'gpt-5-mini': 'free:fast',
      'gpt-5.1-codex': 'free:tool-use',
      o3: 'free:reasoning',
      'o4-mini': 'free:reasoning',
      'o1-preview': 'free:reasoning',
      'gpt-3.5-turbo': 'free:fast',
      'chatgpt-4o-latest': 'free:auto',
    };
    for (const [name, alias] of Object.entries(expected)) expect(target(name), name).to.equal(alias);
  });

  it('is checked like ANTHROPIC_MODEL_MAP: pairs, known targets, globs compiled once', async function () {
    const plugins = await providerPlugins();
    expect(loadConfig({}, plugins).api.modelMap).to.deep.equal([]);
    const config = loadConfig({ MODEL_MAP: ' gpt-4o = free:auto , gpt-4.1-* =free:fast,' }, plugins);
    expect(config.api.modelMap.map(({ glob, target }) => `${glob}=${target}`)).to.deep.equal(['gpt-4o=free:auto', 'gpt-4.1-*=free:fast']);
    expect(config.api.modelMap[1]?.pattern.test('gpt-4.1-mini')).to.equal(true);
    expect(config.api.modelMap[1]?.pattern.test('gpt-4o1-mini')).to.equal(false);
    expect(() => loadConfig({ MODEL_MAP: 'gpt-4o=' }, plugins)).to.throw('MODEL_MAP must be comma-separated glob=target pairs such as gpt-4o*=free:tool-use, got "gpt-4o="');
    expect(() => loadConfig({ MODEL_MAP: 'gpt-4o=openai/gpt-4o' }, plugins)).to.throw(
      'MODEL_MAP maps gpt-4o to openai/gpt-4o, which is not a model or alias of the catalog (GET /v1/models lists them)',
    );
  });
});
