/**
 * The official `openai` npm SDK as a real client of Freeway: Freeway listens on
 * an ephemeral 127.0.0.1 port, its providers point at a fake upstream on
 * 127.0.0.1, and every assertion is on what the SDK hands back to its caller
 * (or on what the upstream was sent).
 */
import { expect } from 'chai';
import OpenAI, { AuthenticationError, BadRequestError, InternalServerError, NotFoundError } from 'openai';
import type { ChatCompletionChunk, ChatCompletionMessageParam, ChatCompletionTool } from 'openai/resources/chat/completions';
import { startFreeway, type RunningFreeway } from '../support/freeway.ts';
import { headerFor, keyHeaders, testKeys } from '../support/keys.ts';
import { freewayOverOneUpstream, openaiClient, rejection } from '../support/suite.ts';
import { openAIError, openAISSE, openAIText, openAIToolCall, usage, type FakeUpstream, type SeenRequest } from '../support/upstream.ts';

const ALIASES = ['free:auto', 'free:fast', 'free:reasoning', 'free:long-context', 'free:vision', 'free:tool-use'];

const weatherTool: ChatCompletionTool = {
  type: 'function',
  function: {
    name: 'get_weather',
    description: 'Current weather for a city',
    parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
  },
};

const client = (freeway: RunningFreeway, headers: Record<string, string> = keyHeaders('cerebras')): OpenAI => openaiClient(freeway, headers);

/** Cerebras's first current model, which free:auto tries first here (from the plugin's curated list, which changes with each review). */
const cerebrasFirst = (freeway: RunningFreeway): string =>
  freeway.catalog.providers.find((provider) => provider.id === 'cerebras')?.models.find((model) => !model.deprecated)?.id ?? 'none';

const lastMessage = (req: SeenRequest): Record<string, unknown> | undefined => {
  const messages = req.body?.messages as Array<Record<string, unknown>> | undefined;
  return messages?.[messages.length - 1];
};

describe('openai SDK against Freeway', function () {
  let upstream: FakeUpstream;
  let freeway: RunningFreeway;
  let openai: OpenAI;

  const suite = freewayOverOneUpstream(['cerebras', 'mistral']);
  before(function () {
    ({ upstream, freeway } = suite);
    openai = client(freeway);
  });

  describe('chat.completions.create', function () {
    it('returns the upstream text as a chat.completion with usage and the requested alias as model', async function () {
      const { data: completion, response } = await openai.chat.completions
        .create({ model: 'free:auto', messages: [{ role: 'user', content: 'Say hello' }] })
        .withResponse();

      expect(completion.id).to.match(/^chatcmpl-/);
      expect(completion.object).to.equal('chat.completion');
      expect(completion.model).to.equal('free:auto');
      expect(completion.created).to.be.a('number').within(Date.now() / 1000 - 60, Date.now() / 1000 + 60);
      expect(completion.choices).to.have.length(1);
      const [choice] = completion.choices;
      expect(choice?.index).to.equal(0);
      expect(choice?.message.role).to.equal('assistant');
      expect(choice?.message.content).to.equal('Hello there friend');
      expect(choice?.finish_reason).to.equal('stop');
      expect(completion.usage?.prompt_tokens).to.equal(usage.prompt_tokens);
      expect(completion.usage?.completion_tokens).to.equal(usage.completion_tokens);
      expect(completion.usage?.total_tokens).to.equal(usage.total_tokens);
      // The camelCase names ride along with the same numbers.
      expect(completion.usage).to.include({ promptTokens: 7, completionTokens: 3, totalTokens: 10 });

      expect(response.headers.get('x-freeway-provider')).to.equal('cerebras');
      expect(response.headers.get('x-freeway-model')).to.equal(`cerebras/${cerebrasFirst(freeway)}`);

      expect(upstream.requests).to.have.length(1);
      const seen = upstream.requests[0] as SeenRequest;
      expect(seen.path).to.equal('/chat/completions');
      expect(seen.body?.model).to.equal(cerebrasFirst(freeway));
      expect(seen.body?.messages).to.deep.equal([{ role: 'user', content: 'Say hello' }]);
      // The caller's provider key goes upstream; the SDK's placeholder api key never does.
      expect(seen.headers.authorization).to.equal(`Bearer ${testKeys.cerebras}`);
      expect(JSON.stringify(seen.headers)).not.to.include('placeholder');
    });

    it('answers a pinned model with the pinned id as model, using a key sent per request', async function () {
      const bare = client(freeway, {});
      const completion = await bare.chat.completions.create(
        { model: 'mistral/mistral-small-latest', messages: [{ role: 'user', content: 'Hi' }] },
        { headers: keyHeaders('mistral') },
      );
      expect(completion.model).to.equal('mistral/mistral-small-latest');
      expect(completion.choices[0]?.message.content).to.equal('Hello there friend');
      expect(upstream.requests[0]?.body?.model).to.equal('mistral-small-latest');
      expect(upstream.requests[0]?.headers.authorization).to.equal(`Bearer ${testKeys.mistral}`);
    });
  });

  describe('streaming', function () {
    it('streams role first, content deltas, finish_reason last and a usage chunk with empty choices', async function () {
      const stream = await openai.chat.completions.create({
        model: 'free:auto',
        messages: [{ role: 'user', content: 'Say hello' }],
        stream: true,
        stream_options: { include_usage: true },
      });
      const chunks: ChatCompletionChunk[] = [];
      for await (const chunk of stream) chunks.push(chunk);

      expect(chunks.length).to.be.greaterThan(3);
      const id = chunks[0]?.id;
      expect(id).to.match(/^chatcmpl-/);
      for (const chunk of chunks) {
        expect(chunk.id).to.equal(id);
        expect(chunk.object).to.equal('chat.completion.chunk');
        expect(chunk.model).to.equal('free:auto');
      }
      expect(chunks[0]?.choices[0]?.delta.role).to.equal('assistant');

      const usageChunk = chunks[chunks.length - 1] as ChatCompletionChunk;
      expect(usageChunk.choices).to.deep.equal([]);
      expect(usageChunk.usage).to.include({ prompt_tokens: 7, completion_tokens: 3, total_tokens: 10 });

      const choiceChunks = chunks.slice(0, -1);
      const finishes = choiceChunks.map((chunk) => chunk.choices[0]?.finish_reason);
      expect(finishes.slice(0, -1).every((reason) => reason === null)).to.equal(true);
      expect(finishes[finishes.length - 1]).to.equal('stop');
      const text = choiceChunks.map((chunk) => chunk.choices[0]?.delta.content ?? '').join('');
      expect(text).to.equal('Hello there friend');
      expect(upstream.requests[0]?.body?.stream).to.equal(true);
    });

    it('as the README shows: .withResponse() gives the answering model in X-Freeway-Model before the stream is read', async function () {
      const { data: stream, response } = await openai.chat.completions
        .create({ model: 'free:auto', stream: true, messages: [{ role: 'user', content: 'Count to 5' }] })
        .withResponse();
      expect(response.headers.get('x-freeway-model')).to.equal(`cerebras/${cerebrasFirst(freeway)}`);
      let text = '';
      for await (const chunk of stream) {
        // The body's `model` is what was asked for: the alias.
        expect(chunk.model).to.equal('free:auto');
        text += chunk.choices[0]?.delta?.content ?? '';
      }
      expect(text).to.equal('Hello there friend');
    });

    it('sends no usage chunk without stream_options.include_usage', async function () {
      const stream = await openai.chat.completions.create({ model: 'free:auto', messages: [{ role: 'user', content: 'Hi' }], stream: true });
      const chunks: ChatCompletionChunk[] = [];
      for await (const chunk of stream) chunks.push(chunk);
      expect(chunks.every((chunk) => chunk.choices.length === 1 && chunk.usage == null)).to.equal(true);
      expect(chunks[chunks.length - 1]?.choices[0]?.finish_reason).to.equal('stop');
    });

    it('works with the SDK stream helper: content events and finalChatCompletion', async function () {
      const stream = openai.chat.completions.stream({ model: 'free:fast', messages: [{ role: 'user', content: 'Hi' }] });
      const deltas: string[] = [];
      stream.on('content', (delta) => deltas.push(delta));
      const final = await stream.finalChatCompletion();
      expect(deltas.join('')).to.equal('Hello there friend');
      expect(final.model).to.equal('free:fast');
      expect(final.choices[0]?.message.content).to.equal('Hello there friend');
      expect(final.choices[0]?.finish_reason).to.equal('stop');
    });
  });

  describe('tool calls', function () {
    it('non-streaming: message.tool_calls with id, type, name and JSON arguments; content null; finish_reason tool_calls', async function () {
      upstream.handle((_req, res) => openAIToolCall(res, 'get_weather', '{"city":"Paris"}'));
      const completion = await openai.chat.completions.create({
        model: 'free:tool-use',
        messages: [{ role: 'user', content: 'Weather in Paris?' }],
        tools: [weatherTool],
      });
      const choice = completion.choices[0];
      expect(choice?.finish_reason).to.equal('tool_calls');
      expect(choice?.message.content).to.equal(null);
      expect(choice?.message.tool_calls).to.deep.equal([
        { id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } },
      ]);
      const call = choice?.message.tool_calls?.[0];
      expect(call?.type === 'function' && JSON.parse(call.function.arguments)).to.deep.equal({ city: 'Paris' });
      expect(upstream.requests[0]?.body?.tools).to.deep.equal([weatherTool]);
    });

    it('streaming: delta.tool_calls carry index, and the SDK helper rebuilds the call', async function () {
      upstream.handle((_req, res) => openAIToolCall(res, 'get_weather', '{"city":"Paris"}'));
      const stream = openai.chat.completions.stream({
        model: 'free:tool-use',
        messages: [{ role: 'user', content: 'Weather in Paris?' }],
        tools: [weatherTool],
      });
      const chunks: ChatCompletionChunk[] = [];
      const done: Array<{ name: string; index: number; arguments: string }> = [];
      stream.on('chunk', (chunk) => chunks.push(chunk));
      stream.on('tool_calls.function.arguments.done', (event) => done.push({ name: event.name, index: event.index, arguments: event.arguments }));
      const final = await stream.finalChatCompletion();

      const toolDeltas = chunks.flatMap((chunk) => chunk.choices[0]?.delta.tool_calls ?? []);
      expect(toolDeltas.length).to.be.greaterThan(1);
      expect(toolDeltas.every((delta) => delta.index === 0)).to.equal(true);
      expect(toolDeltas[0]).to.deep.include({ id: 'call_1', type: 'function' });
      expect(toolDeltas[0]?.function?.name).to.equal('get_weather');
      expect(toolDeltas.map((delta) => delta.function?.arguments ?? '').join('')).to.equal('{"city":"Paris"}');

      expect(done).to.deep.equal([{ name: 'get_weather', index: 0, arguments: '{"city":"Paris"}' }]);
      expect(final.choices[0]?.finish_reason).to.equal('tool_calls');
      expect(final.choices[0]?.message.tool_calls).to.deep.equal([
        { id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } },
      ]);
    });

    it('streaming: two parallel calls keep separate indexes', async function () {
      upstream.handle((_req, res) =>
        openAISSE(res, [
          { choices: [{ index: 0, delta: { role: 'assistant', tool_calls: [{ index: 0, id: 'call_a', type: 'function', function: { name: 'get_weather', arguments: '{"city":' } }] }, finish_reason: null }] },
          { choices: [{ index: 0, delta: { tool_calls: [{ index: 0, function: { arguments: '"Paris"}' } }] }, finish_reason: null }] },
          { choices: [{ index: 0, delta: { tool_calls: [{ index: 1, id: 'call_b', type: 'function', function: { name: 'get_weather', arguments: '{"city":' } }] }, finish_reason: null }] },
          { choices: [{ index: 0, delta: { tool_calls: [{ index: 1, function: { arguments: '"Oslo"}' } }] }, finish_reason: null }] },
          { choices: [{ index: 0, delta: {}, finish_reason: 'tool_calls' }], usage },
        ]),
      );
      const final = await openai.chat.completions
        .stream({ model: 'free:tool-use', messages: [{ role: 'user', content: 'Paris and Oslo?' }], tools: [weatherTool] })
        .finalChatCompletion();
      expect(final.choices[0]?.message.tool_calls).to.deep.equal([
        { id: 'call_a', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } },
        { id: 'call_b', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Oslo"}' } },
      ]);
      expect(final.choices[0]?.finish_reason).to.equal('tool_calls');
    });

    it('multi-turn: the assistant tool_calls message and the tool result reach the upstream as OpenAI messages', async function () {
      // Answers with a tool call until it sees a tool result, then with text.
      upstream.handle((req, res) => {
        if (lastMessage(req)?.role === 'tool') openAIText(res, 'It is sunny in Paris.', req);
        else openAIToolCall(res, 'get_weather', '{"city":"Paris"}');
      });
      const messages: ChatCompletionMessageParam[] = [
        { role: 'system', content: 'You are a weather bot.' },
        { role: 'user', content: 'Weather in Paris?' },
      ];
      const first = await openai.chat.completions.create({ model: 'free:tool-use', messages, tools: [weatherTool] });
      const assistant = first.choices[0]?.message;
      const call = assistant?.tool_calls?.[0];
      if (!assistant || call?.type !== 'function') throw new Error('expected a function tool call');
      // The SDK's own message object goes straight back, as OpenAI's docs do it.
      messages.push(assistant, { role: 'tool', tool_call_id: call.id, content: '{"temperature":21,"sky":"clear"}' });

      const second = await openai.chat.completions.create({ model: 'free:tool-use', messages, tools: [weatherTool] });
      expect(second.choices[0]?.message.content).to.equal('It is sunny in Paris.');
      expect(second.choices[0]?.finish_reason).to.equal('stop');

      expect(upstream.requests).to.have.length(2);
      const sent = upstream.requests[1]?.body?.messages as Array<Record<string, unknown>>;
      expect(sent).to.have.length(4);
      expect(sent[0]).to.deep.equal({ role: 'system', content: 'You are a weather bot.' });
      expect(sent[1]).to.deep.equal({ role: 'user', content: 'Weather in Paris?' });
      expect(sent[2]).to.deep.equal({
        role: 'assistant',
        content: null,
        tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } }],
      });
      expect(sent[3]).to.deep.equal({ role: 'tool', tool_call_id: 'call_1', content: '{"temperature":21,"sky":"clear"}' });
    });
  });

  describe('models', function () {
    it('models.list: the 6 chat aliases and free:embed and free:transcribe owned by freeway, then every concrete model owned by its provider', async function () {
      const models = [];
      // Without key headers: the whole curated catalog (with them, what those keys can use: test/routing/live-models.test.ts).
      const keyless = Object.fromEntries(Object.keys(testKeys).map((id) => [headerFor(id), null]));
      for await (const model of openai.models.list({ headers: keyless })) models.push(model);

      const chat = freeway.catalog.models.map((model) => model.id);
      expect(chat.length).to.be.greaterThan(80);
      const concrete = [...chat, ...freeway.catalog.embeddingModels.map((model) => model.id), ...freeway.catalog.transcriptionModels.map((model) => model.id)];
      expect(models).to.have.length(ALIASES.length + 2 + concrete.length);
      expect(models.slice(0, 6).map((model) => model.id)).to.have.members(ALIASES);
      expect(models.slice(6, 8).map((model) => model.id)).to.deep.equal(['free:embed', 'free:transcribe']);
      for (const model of models.slice(0, 8)) expect(model).to.include({ object: 'model', owned_by: 'freeway' });
      expect(models.slice(8).map((model) => model.id)).to.have.members(concrete);
      for (const model of models.slice(8)) {
        expect(model.object).to.equal('model');
        expect(model.id.startsWith(`${model.owned_by}/`), model.id).to.equal(true);
        expect(model.created).to.be.a('number');
      }
    });

    it('models.retrieve: an alias', async function () {
      const model = await openai.models.retrieve('free:vision');
      expect(model).to.include({ id: 'free:vision', object: 'model', owned_by: 'freeway' });
    });

    for (const id of ['cloudflare/@cf/meta/llama-3.1-8b-instruct-fp8', 'openrouter/google/gemma-4-31b-it:free', 'fireworks/accounts/fireworks/models/firefunction-v2']) {
      it(`models.retrieve: ${id} (the SDK sends each / as %2F)`, async function () {
        const model = await openai.models.retrieve(id);
        expect(model).to.include({ id, object: 'model', owned_by: id.split('/')[0] });
      });
    }

    it('models.retrieve: an unknown id is a NotFoundError', async function () {
      const error = await rejection(() => openai.models.retrieve('groq/nope'));
      expect(error).to.be.instanceOf(NotFoundError);
      expect(error.status).to.equal(404);
      expect(error.type).to.equal('invalid_request_error');
      expect(error.message).to.equal('404 Unknown model: groq/nope. GET /v1/models lists the models.');
    });
  });

  describe('errors as APIError subclasses', function () {
    it('400 validation: BadRequestError with invalid_request_error and the field in the message', async function () {
      const error = await rejection(() =>
        openai.chat.completions.create({ model: 'free:auto', messages: [{ role: 'user', content: 'Hi' }], temperature: 5 }),
      );
      expect(error).to.be.instanceOf(BadRequestError);
      expect(error.status).to.equal(400);
      expect(error.type).to.equal('invalid_request_error');
      expect(error.error).to.deep.equal({ message: 'Validation failed: temperature: must be <= 2', type: 'invalid_request_error', code: 400 });
      expect(error.message).to.equal('400 Validation failed: temperature: must be <= 2');
      expect(upstream.requests).to.have.length(0);
    });

    it('400 validation: n > 1', async function () {
      const error = await rejection(() => openai.chat.completions.create({ model: 'free:auto', messages: [{ role: 'user', content: 'Hi' }], n: 2 }));
      expect(error).to.be.instanceOf(BadRequestError);
      expect(error.type).to.equal('invalid_request_error');
      expect(error.message).to.match(/^400 Validation failed: n: /);
    });

    it('401 without any provider key: AuthenticationError naming the headers to send', async function () {
      const error = await rejection(() => client(freeway, {}).chat.completions.create({ model: 'free:auto', messages: [{ role: 'user', content: 'Hi' }] }));
      expect(error).to.be.instanceOf(AuthenticationError);
      expect(error.status).to.equal(401);
      expect(error.type).to.equal('authentication_error');
      expect(error.message).to.match(/^401 No provider key for free:auto\. Send one of: /);
      expect(error.message).to.include('X-Cerebras-Key').and.include('X-Groq-Key');
    });

    it('401 for a pinned model without its provider key', async function () {
      const error = await rejection(() =>
        openai.chat.completions.create({ model: 'groq/llama-3.3-70b-versatile', messages: [{ role: 'user', content: 'Hi' }] }),
      );
      expect(error).to.be.instanceOf(AuthenticationError);
      expect(error.type).to.equal('authentication_error');
      expect(error.message).to.equal('401 groq/llama-3.3-70b-versatile needs the X-Groq-Key header.');
    });

    it('404 unknown model: NotFoundError', async function () {
      const error = await rejection(() => openai.chat.completions.create({ model: 'groq/nope', messages: [{ role: 'user', content: 'Hi' }] }));
      expect(error).to.be.instanceOf(NotFoundError);
      expect(error.status).to.equal(404);
      expect(error.type).to.equal('invalid_request_error');
      expect(error.message).to.equal('404 Unknown model: groq/nope. GET /v1/models lists the models.');
    });

    describe('502 (fresh Freeway per test, so provider health starts clean)', function () {
      let failing: RunningFreeway;
      let sdk: OpenAI;

      beforeEach(async function () {
        upstream.handle((_req, res) => openAIError(res, 500, `upstream exploded for ${testKeys.cerebras}`));
        failing = await startFreeway({ env: { CEREBRAS_BASE_URL: upstream.url, MISTRAL_BASE_URL: upstream.url } });
        sdk = client(failing, keyHeaders('cerebras', 'mistral'));
      });

      afterEach(async function () {
        await failing.close();
      });

      it('all providers fail with 500: InternalServerError, freeway_all_providers_failed, every attempt named, key redacted', async function () {
        const error = await rejection(() => sdk.chat.completions.create({ model: 'free:auto', messages: [{ role: 'user', content: 'Hi' }] }));
        expect(error).to.be.instanceOf(InternalServerError);
        expect(error.status).to.equal(502);
        expect(error.type).to.equal('freeway_all_providers_failed');
        expect(error.message).to.match(/^502 All providers failed: cerebras: 500 upstream exploded for \[REDACTED\]/);
        expect(error.message).to.include('mistral: 500 upstream exploded for [REDACTED]');
        expect(error.message).not.to.include(testKeys.cerebras);
        expect((error.error as { code: unknown }).code).to.equal(502);
        expect(upstream.requests.length).to.be.greaterThan(1);
        const reasons = error.message.slice('502 All providers failed: '.length).split('; ');
        expect(reasons).to.have.length(upstream.requests.length);
        expect(error.headers?.get('x-freeway-attempts')).to.be.a('string').and.include(`cerebras/${cerebrasFirst(failing)} 500`);
      });

      it('a streaming request that fails before the first byte is a 502 APIError too, not a broken stream', async function () {
        const error = await rejection(() => sdk.chat.completions.create({ model: 'free:auto', messages: [{ role: 'user', content: 'Hi' }], stream: true }));
        expect(error).to.be.instanceOf(InternalServerError);
        expect(error.status).to.equal(502);
        expect(error.type).to.equal('freeway_all_providers_failed');
      });

      it('a pinned model that fails: freeway_provider_error', async function () {
        const error = await rejection(() => sdk.chat.completions.create({ model: `cerebras/${cerebrasFirst(failing)}`, messages: [{ role: 'user', content: 'Hi' }] }));
        expect(error).to.be.instanceOf(InternalServerError);
        expect(error.status).to.equal(502);
        expect(error.type).to.equal('freeway_provider_error');
        expect(error.message).to.equal('502 Provider failed: cerebras: 500 upstream exploded for [REDACTED]');
        expect(upstream.requests).to.have.length(1);
      });
    });
  });
});
