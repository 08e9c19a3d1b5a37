/**
 * "Done when": for every provider the loader discovers, the official `openai` SDK
 * pointed at Freeway gets a completion, plain and streamed, from that provider.
 * Each provider is played by its own fake upstream on 127.0.0.1, reached
 * through `<ID>_BASE_URL`, so the test also shows which wire path and auth
 * header each provider's calls really use.
 */
import { expect } from 'chai';
import OpenAI from 'openai';
import type { ProviderPlugin } from '../../providers/types.ts';
import { providerPlugins, startFreeway, type RunningFreeway } from '../support/freeway.ts';
import { headerFor, testKeys } from '../support/keys.ts';
import { geminiSSE, openAIText, startUpstream, type FakeUpstream, type SeenRequest } from '../support/upstream.ts';
import { chatPath, expectCredential, liveModelId, wireOf } from '../support/wire.ts';

const plugins = await providerPlugins();

const answerOf = (id: string): string => `Hello from the ${id} upstream`;

function expectUpstreamCall(plugin: ProviderPlugin, modelId: string, request: SeenRequest | undefined, streamed = true): void {
  expect(request, `${plugin.id} upstream was called`).to.not.equal(undefined);
  const seen = request as SeenRequest;
  const key = testKeys[plugin.id] as string;
  expect(seen.method).to.equal('POST');
  expect(seen.path).to.equal(chatPath(plugin, modelId, key));
  const header = (name: string): string | undefined => {
    const value = seen.headers[name];
    return Array.isArray(value) ? value.join(', ') : value;
  };
  expectCredential(plugin, key, header, seen.path);
  if (wireOf(plugin).format === 'gemini') {
    expect(seen.body?.contents).to.deep.equal([{ role: 'user', parts: [{ text: 'Say hello' }] }]);
  } else {
    expect(seen.body?.model).to.equal(modelId);
    // Non-streaming callers are streamed upstream too, except by providers whose streams carry no usage.
    if (streamed) expect(seen.body?.stream).to.equal(true);
    else expect(seen.body).not.to.have.property('stream');
    expect(seen.body?.messages).to.deep.equal([{ role: 'user', content: 'Say hello' }]);
  }
}

describe('every provider through the official openai SDK', function () {
  const upstreams = new Map<string, FakeUpstream>();
  let freeway: RunningFreeway;

  before(async function () {
    const env: Record<string, string> = {};
    for (const plugin of plugins) {
      const { id } = plugin;
      const gemini = wireOf(plugin).format === 'gemini';
      const upstream = await startUpstream((req, res) => (gemini ? geminiSSE(res, answerOf(id)) : openAIText(res, answerOf(id), req)));
      upstreams.set(id, upstream);
      env[`${id.toUpperCase()}_BASE_URL`] = upstream.url;
    }
    freeway = await startFreeway({ env });
  });

  after(async function () {
    await freeway?.close();
    await Promise.all([...upstreams.values()].map((upstream) => upstream.close()));
  });

  it('covers every provider the loader discovers', function () {
    expect([...upstreams.keys()]).to.deep.equal(plugins.map((plugin) => plugin.id));
    expect(plugins.length).to.be.greaterThan(0);
  });

  for (const plugin of plugins) {
    const { id } = plugin;
    describe(id, function () {
      const modelId = liveModelId(plugin);
      const model = `${id}/${modelId}`;
      let openai: OpenAI;
      let upstream: FakeUpstream;

      before(function () {
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
        expectUpstreamCall(plugin, modelId, upstream.requests[0], plugin.usageInStreams !== false);
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
        expectUpstreamCall(plugin, modelId, upstream.requests[0]);
      });
    });
  }
});
