/**
 * The plugin contract, checked over every folder the loader discovers: a new
 * provider folder that breaks any rule here fails before it reaches a request.
 * Also pins DECISIONS.md's provider table (ids, headers, default base URLs).
 */
import { readdir } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';
import { loadProviderPlugins } from '../providers/loader.ts';
import type { Capability, FetchFunction, ProviderPlugin } from '../providers/types.ts';
import { createRedactor, REDACTED } from '../server/http/redact.ts';
import { testKeys } from './support/keys.ts';

/** DECISIONS.md, "The 13 providers". */
const decisions: ReadonlyArray<readonly [id: string, header: string, baseURL: string]> = [
  ['groq', 'X-Groq-Key', 'https://api.groq.com/openai/v1'],
  ['google', 'X-Google-Key', 'https://generativelanguage.googleapis.com/v1beta'],
  ['openrouter', 'X-Openrouter-Key', 'https://openrouter.ai/api/v1'],
  ['cloudflare', 'X-Cloudflare-Key', 'https://api.cloudflare.com/client/v4'],
  ['nvidia', 'X-Nvidia-Key', 'https://integrate.api.nvidia.com/v1'],
  ['cerebras', 'X-Cerebras-Key', 'https://api.cerebras.ai/v1'],
  ['together', 'X-Together-Key', 'https://api.together.xyz/v1'],
  ['fireworks', 'X-Fireworks-Key', 'https://api.fireworks.ai/inference/v1'],
  ['mistral', 'X-Mistral-Key', 'https://api.mistral.ai/v1'],
  ['sambanova', 'X-Sambanova-Key', 'https://api.sambanova.ai/v1'],
  ['deepseek', 'X-Deepseek-Key', 'https://api.deepseek.com/v1'],
  ['deepinfra', 'X-Deepinfra-Key', 'https://api.deepinfra.com/v1/openai'],
  ['cohere', 'X-Cohere-Key', 'https://api.cohere.ai/compatibility/v1'],
];

const allowedCapabilities: readonly Capability[] = ['fast', 'reasoning', 'long-context', 'vision', 'tool-use'];

const providersDir = fileURLToPath(new URL('../providers/', import.meta.url));
const plugins = await loadProviderPlugins();
const folders = (await readdir(providersDir, { withFileTypes: true }))
  .filter((entry) => entry.isDirectory())
  .map((entry) => entry.name)
  .sort();

const capitalized = (id: string): string => `${id.charAt(0).toUpperCase()}${id.slice(1)}`;

/** The part of a sample key that is the upstream credential (Cloudflare's is after `account_id:`). */
function credentialOf(plugin: ProviderPlugin, key: string): string {
  return plugin.id === 'cloudflare' ? key.slice(key.indexOf(':') + 1) : key;
}

/** Texts an upstream error or a log line could wrap a key in; the redactor must keep everything around it. */
const contexts: ReadonlyArray<(key: string) => string> = [
  (key) => key,
  (key) => `Incorrect API key provided: ${key}. You can find your API key in the dashboard.`,
  (key) => `{"error":{"message":"invalid key '${key}'","code":401}}`,
  (key) => `Authorization: Bearer ${key}\nnext line`,
  (key) => `https://example.test/v1?key=${key}&alt=sse`,
];

describe('provider plugin contract', function () {
  it('the loader finds one plugin per folder, each with id = folder name', function () {
    expect(plugins.map((plugin) => plugin.id)).to.deep.equal(folders);
  });

  it("matches DECISIONS.md's table: exactly the 13 ids, their headers and default base URLs", function () {
    expect(plugins.map((plugin) => plugin.id).sort()).to.deep.equal(decisions.map(([id]) => id).sort());
    for (const [id, header, baseURL] of decisions) {
      const plugin = plugins.find((candidate) => candidate.id === id);
      expect(plugin, id).to.not.equal(undefined);
      expect(plugin?.header, `${id} header`).to.equal(header);
      expect(plugin?.baseURL, `${id} baseURL`).to.equal(baseURL);
    }
  });

  it('ids are unique', function () {
    const ids = plugins.map((plugin) => plugin.id);
    expect(new Set(ids).size).to.equal(ids.length);
  });

  it('headers are unique, also case-insensitively (HTTP header names are)', function () {
    const headers = plugins.map((plugin) => plugin.header.toLowerCase());
    expect(new Set(headers).size).to.equal(headers.length);
  });

  it('priorities are unique, so alias order never depends on load order', function () {
    const priorities = plugins.map((plugin) => plugin.priority);
    expect(new Set(priorities).size, `priorities ${priorities.join(', ')}`).to.equal(priorities.length);
  });

  it('the combined redactor leaves every catalog model id readable', function () {
    const redact = createRedactor(plugins);
    for (const plugin of plugins) {
      for (const model of plugin.models) {
        const text = `Rate limit reached for model ${plugin.id}/${model.id} (${model.id}).`;
        expect(redact(text), text).to.equal(text);
      }
    }
  });

  for (const plugin of plugins) {
    describe(plugin.id, function () {
      const sampleKey = testKeys[plugin.id];

      it('has the plugin shape: id, name, header, https baseURL, priority', function () {
        expect(plugin.id).to.match(/^[a-z0-9]+$/);
        expect(plugin.name).to.be.a('string');
        expect(plugin.name.trim()).to.not.equal('');
        expect(plugin.header).to.equal(`X-${capitalized(plugin.id)}-Key`);
        expect(plugin.baseURL).to.be.a('string');
        const url = new URL(plugin.baseURL);
        expect(url.protocol).to.equal('https:');
        expect(url.search, 'no query string').to.equal('');
        expect(url.hash, 'no fragment').to.equal('');
        expect(plugin.baseURL.endsWith('/'), 'no trailing slash').to.equal(false);
        expect(plugin.priority).to.be.a('number');
        expect(Number.isFinite(plugin.priority)).to.equal(true);
        expect(plugin.createModel).to.be.a('function');
        if (plugin.checkKey !== undefined) expect(plugin.checkKey).to.be.a('function');
        if (plugin.readQuota !== undefined) expect(plugin.readQuota).to.be.a('function');
      });

      it('declares a non-empty model list with valid ids, capabilities and context windows', function () {
        expect(plugin.models).to.be.an('array').that.is.not.empty;
        const ids = new Set<string>();
        for (const model of plugin.models) {
          expect(model.id, 'model id').to.be.a('string');
          expect(model.id.trim(), 'model id').to.not.equal('');
          expect(model.id, 'model id has no surrounding whitespace').to.equal(model.id.trim());
          expect(ids.has(model.id), `duplicate model id ${model.id}`).to.equal(false);
          ids.add(model.id);
          expect(model.capabilities, `${model.id} capabilities`).to.be.an('array');
          for (const capability of model.capabilities) {
            expect(allowedCapabilities, `${model.id} capability`).to.include(capability);
          }
          expect(new Set(model.capabilities).size, `${model.id} repeats a capability`).to.equal(model.capabilities.length);
          expect(Number.isInteger(model.contextWindow) && model.contextWindow > 0, `${model.id} contextWindow ${model.contextWindow}`).to.equal(true);
          if (model.deprecated !== undefined) expect(model.deprecated, `${model.id} deprecated`).to.be.a('boolean');
        }
      });

      it('has a sample key in test/support/keys.ts that its checkKey (if any) accepts', function () {
        expect(sampleKey, `testKeys.${plugin.id}`).to.be.a('string');
        if (plugin.checkKey) expect(plugin.checkKey(sampleKey as string)).to.equal(undefined);
      });

      it('key patterns are flag-free, never match empty text, and each matches the sample key', function () {
        for (const pattern of plugin.keyPatterns) {
          expect(pattern.flags, `${pattern} flags (the redactor compiles sources only)`).to.equal('');
          expect(new RegExp(`^(?:${pattern.source})$`).test(''), `${pattern} matches ''`).to.equal(false);
          expect(pattern.test(sampleKey as string), `${pattern} vs the sample key`).to.equal(true);
        }
      });

      it('the redactor removes the sample key completely, with and without the request keys', function () {
        const redact = createRedactor(plugins);
        const key = sampleKey as string;
        const credential = credentialOf(plugin, key);
        for (const context of contexts) {
          // Given the request's keys (how error bodies are redacted), every provider's key goes, all of it.
          expect(redact(context(key), [key]), 'with request keys').to.equal(context(REDACTED));
          // From the patterns alone (a key an upstream echoes back), the whole credential goes, no tail left.
          if (plugin.keyPatterns.length > 0) {
            expect(redact(context(credential)), 'patterns only').to.equal(context(REDACTED));
          }
        }
      });

      it('createModel returns an AI SDK v4 language model for every declared model, without network', async function () {
        const noNetwork: FetchFunction = () => {
          throw new Error('createModel must not call the network');
        };
        for (const spec of plugin.models) {
          const model = await plugin.createModel({ modelId: spec.id, baseURL: plugin.baseURL, fetch: noNetwork });
          expect(model.specificationVersion).to.equal('v4');
          expect(model.modelId).to.equal(spec.id);
          expect(model.provider).to.be.a('string');
          expect(model.provider.split('.')[0], 'provider').to.equal(plugin.id);
          expect(model.doStream).to.be.a('function');
          expect(model.doGenerate).to.be.a('function');
        }
      });

      it('the model sends its calls through the given fetch, to the given baseURL, with the credential', async function () {
        const spec = plugin.models[0];
        if (!spec) throw new Error('no models');
        const baseURL = 'https://contract.example.test/base';
        const calls: Array<{ url: string; headers: Headers }> = [];
        const fakeFetch: FetchFunction = async (input, init) => {
          const request = new Request(input, init);
          calls.push({ url: request.url, headers: request.headers });
          return new Response('', { status: 200, headers: { 'content-type': 'text/event-stream' } });
        };
        // One model serves every caller: the key comes with each call, never with the model.
        const model = await plugin.createModel({ modelId: spec.id, baseURL, fetch: fakeFetch });
        const otherKey = sampleKey!.replace(/[0-9]/g, '7');
        for (const key of [sampleKey as string, otherKey]) {
          const { stream } = await model.doStream({
            prompt: [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }],
            headers: plugin.authHeaders(key),
          });
          await stream.cancel();
        }
        expect(calls).to.have.length(2);
        calls.forEach((call, i) => {
          const key = i === 0 ? (sampleKey as string) : otherKey;
          expect(call.url.startsWith(`${baseURL}/`), call.url).to.equal(true);
          const credential = credentialOf(plugin, key);
          const sent = [...call.headers.values()];
          expect(sent.some((value) => value === credential || value === `Bearer ${credential}`), 'credential header').to.equal(true);
          expect(sent.filter((value) => value.includes('per-request')), 'no construction-time placeholder is sent').to.deep.equal([]);
          expect(call.url, 'the key is not in the URL').to.not.include(credential);
          if (plugin.id === 'cloudflare') {
            expect(call.url).to.equal(`${baseURL}/accounts/${key.slice(0, key.indexOf(':'))}/ai/v1/chat/completions`);
            expect([...call.headers.keys()].filter((name) => name.startsWith('x-freeway'))).to.deep.equal([]);
          }
        });
      });
    });
  }

  it('cloudflare: checkKey rejects a value without account_id: and never repeats it', function () {
    const cloudflare = plugins.find((plugin) => plugin.id === 'cloudflare');
    if (!cloudflare?.checkKey) throw new Error('cloudflare has no checkKey');
    for (const value of ['CFtestTokenOnlyNoAccount_123456', ':CFtokenWithoutAccount_1234', 'account0123456789:']) {
      const problem = cloudflare.checkKey(value);
      expect(problem, value).to.be.a('string');
      expect(problem).to.include('X-Cloudflare-Key');
      expect(problem).to.include('account_id:api_token');
      for (const part of value.split(':').filter(Boolean)) expect(problem).to.not.include(part);
    }
  });
});
