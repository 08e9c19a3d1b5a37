/**
 * "Done when": for every one of the 13 providers, the official `openai` SDK
 * pointed at Freeway gets a completion, plain and streamed, from that provider.
 * Each provider is played by its own fake upstream on 127.0.0.1, reached
 * through `<ID>_BASE_URL`, so the test also shows which wire path and auth
 * header each provider's calls really use.
 */
import { expect } from 'chai';
import OpenAI from 'openai';
import type { ProviderPlugin } from '../providers/types.ts';
import { providerPlugins, startFreeway, type RunningFreeway } from './support/freeway.ts';
import { headerFor, testKeys } from './support/keys.ts';
import { geminiSSE, openAIText, startUpstream, type FakeUpstream, type SeenRequest } from './support/upstream.ts';

const PROVIDERS = [
  'groq',
  'google',
  'openrouter',
  'cloudflare',
  'nvidia',
  'cerebras',
  'together',
  'fireworks',
  'mistral',
  'sambanova',
  'deepseek',
  'deepinfra',
  'cohere',
] as const;

const plugins = await providerPlugins();

/** A model an alias could pick (not deprecated), pinned as `{provider}/{modelId}`. */
function liveModel(plugin: ProviderPlugin): string {
  const spec = plugin.models.find((model) => !model.deprecated) ?? plugin.models[0];
  if (!spec) throw new Error(`${plugin.id} declares no models`);
  return spec.id;
}

const answerOf = (id: string): string => `Hello from the ${id} upstream`;

/** The path (with query) a provider's streaming chat call must reach on its base URL. */
function expectedPath(id: string, modelId: string): string {
  if (id === 'google') return `/models/${modelId}:streamGenerateContent?alt=sse`;
  if (id === 'cloudflare') {
    const key = testKeys.cloudflare as string;
    return `/accounts/${key.slice(0, key.indexOf(':'))}/ai/v1/chat/completions`;
  }
  return '/chat/completions';
}

function expectUpstreamCall(id: string, modelId: string, request: SeenRequest | undefined, streamed = true): void {
  expect(request, `${id} upstream was called`).to.not.equal(undefined);
  const seen = request as SeenRequest;
  expect(seen.method).to.equal('POST');
  expect(seen.path).to.equal(expectedPath(id, modelId));
  const key = testKeys[id] as string;
  if (id === 'google') {
    expect(seen.headers['x-goog-api-key']).to.equal(key);
    expect(seen.body?.contents).to.deep.equal([{ role: 'user', parts: [{ text: 'Say hello' }] }]);
  } else {
    const token = id === 'cloudflare' ? key.slice(key.indexOf(':') + 1) : key;
    expect(seen.headers.authorization).to.equal(`Bearer ${token}`);
    expect(seen.body?.model).to.equal(modelId);
    // Non-streaming callers are streamed upstream too, except by providers whose streams carry no usage.
    if (streamed) expect(seen.body?.stream).to.equal(true);
    else expect(seen.body).not.to.have.property('stream');
    expect(seen.body?.messages).to.deep.equal([{ role: 'user', content: 'Say hello' }]);
  }
}

describe('all 13 providers through the official openai SDK', function () {
  const upstreams = new Map<string, FakeUpstream>();
  let freeway: RunningFreeway;

  before(async function () {
    const env: Record<string, string> = {};
    for (const id of PROVIDERS) {
      const upstream = await startUpstream((req, res) => (id === 'google' ? geminiSSE(res, answerOf(id)) : openAIText(res, answerOf(id), req)));
      upstreams.set(id, upstream);
      env[`${id.toUpperCase()}_BASE_URL`] = upstream.url;
    }
    freeway = await startFreeway({ env });
  });

  after(async function () {
    await freeway?.close();
    await Promise.all([...upstreams.values()].map((upstream) => upstream.close()));
  });

  it('covers exactly the providers the loader discovers', function () {
    expect(plugins.map((plugin) => plugin.id).sort()).to.deep.equal([...PROVIDERS].sort());
  });

  for (const id of PROVIDERS) {
    describe(id, function () {
      const plugin = plugins.find((candidate) => candidate.id === id);
      const modelId = plugin ? liveModel(plugin) : '';
      const model = `${id}/${modelId}`;
      let openai: OpenAI;
      let upstream: FakeUpstream;

      before(function () {
        if (!plugin) throw new Error(`no plugin providers/${id}`);
        upstream = upstreams.get(id) as FakeUpstream;
        openai = new OpenAI({
          baseURL: `${freeway.url}/v1`,
          apiKey: 'unused',
          defaultHeaders: { [headerFor(id)]: testKeys[id] as string },
          maxRetries: 0,
          timeout: 5000,
        });
      });

      beforeEach(function () {
        upstream.requests.length = 0;
      });

      it('chat.completions.create returns the upstream text', async function () {
        const { data: completion, response } = await openai.chat.completions
          .create({ model, messages: [{ role: 'user', content: 'Say hello' }] })
          .withResponse();

        expect(completion.choices[0]?.message.content).to.equal(answerOf(id));
        expect(completion.choices[0]?.finish_reason).to.equal('stop');
        expect(completion.model).to.equal(model);
        expect(completion.id).to.match(/^chatcmpl-/);
        expect(completion.usage?.prompt_tokens).to.equal(7);
        expect(completion.usage?.completion_tokens).to.equal(3);
        expect(completion.usage?.total_tokens).to.equal(10);
        expect(response.headers.get('x-freeway-provider')).to.equal(id);
        expect(response.headers.get('x-freeway-model')).to.equal(model);
        expect(upstream.requests).to.have.length(1);
        expectUpstreamCall(id, modelId, upstream.requests[0], plugin?.usageInStreams !== false);
      });

      it('a streamed create yields the upstream text chunk by chunk', async function () {
        const { data: stream, response } = await openai.chat.completions
          .create({ model, messages: [{ role: 'user', content: 'Say hello' }], stream: true, stream_options: { include_usage: true } })
          .withResponse();

        expect(response.headers.get('x-freeway-provider')).to.equal(id);
        expect(response.headers.get('x-freeway-model')).to.equal(model);
        let text = '';
        let role: string | undefined;
        let finishReason: string | null | undefined;
        let contentChunks = 0;
        let totalTokens: number | undefined;
        for await (const chunk of stream) {
          expect(chunk.model).to.equal(model);
          const choice = chunk.choices[0];
          if (choice) {
            role ??= choice.delta.role;
            if (choice.delta.content) {
              text += choice.delta.content;
              contentChunks += 1;
            }
            if (choice.finish_reason) finishReason = choice.finish_reason;
          }
          if (chunk.usage) totalTokens = chunk.usage.total_tokens;
        }
        expect(role).to.equal('assistant');
        expect(text).to.equal(answerOf(id));
        expect(contentChunks, 'the answer arrives in more than one delta').to.be.greaterThan(1);
        expect(finishReason).to.equal('stop');
        expect(totalTokens).to.equal(10);
        expect(upstream.requests).to.have.length(1);
        expectUpstreamCall(id, modelId, upstream.requests[0]);
      });
    });
  }
});
