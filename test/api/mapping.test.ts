/**
 * What the upstream receives for each OpenAI request feature, and what the
 * caller gets back for upstream answers: Freeway on an ephemeral 127.0.0.1
 * port, providers pointed at a fake upstream on 127.0.0.1, assertions on the
 * body the upstream recorded.
 */
import { expect } from 'chai';
import { startFreeway, type RunningFreeway } from '../support/freeway.ts';
import { postChat, type ChatResponse } from '../support/http.ts';
import { sseEvents as sse } from '../support/sse.ts';
import { keyHeaders } from '../support/keys.ts';
import { openAIError, openAISSE, openAIText, startUpstream, usage, type FakeUpstream, type SeenRequest } from '../support/upstream.ts';

type Body = Record<string, unknown>;

const PINNED = 'cerebras/llama-3.3-70b';
const VISION = 'openrouter/google/gemma-4-31b-it:free';
const PNG = 'data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==';

const weather = {
  type: 'function',
  function: {
    name: 'get_weather',
    description: 'Current weather for a city',
    parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
  },
};

describe('request and response mapping, as the upstream sees it', function () {
  let upstream: FakeUpstream;
  let freeway: RunningFreeway;

  const chat = (body: Body, headers: Record<string, string> = keyHeaders('cerebras')): Promise<ChatResponse> => postChat(freeway.url, body, headers);

  /** Sends `body` (pinned to cerebras unless it names a model), expects a 200 and returns what the one upstream call carried. */
  async function sent(body: Body, headers?: Record<string, string>): Promise<Body> {
    const reply = await chat({ model: PINNED, ...body }, headers);
    expect(reply.status, reply.text).to.equal(200);
    expect(upstream.requests).to.have.length(1);
    return (upstream.requests[0] as SeenRequest).body as Body;
  }

  const user = (content: unknown) => ({ messages: [{ role: 'user', content }] });

  before(async function () {
    upstream = await startUpstream();
    freeway = await startFreeway({
      env: { CEREBRAS_BASE_URL: upstream.url, OPENROUTER_BASE_URL: upstream.url, CLOUDFLARE_BASE_URL: upstream.url },
    });
  });

  after(async function () {
    await freeway.close();
    await upstream.close();
  });

  beforeEach(function () {
    upstream.requests.length = 0;
    upstream.handle((req, res) => openAIText(res, 'Hello', req));
  });

  describe('messages', function () {
    it('system and developer messages both arrive as system messages, in order; text-part arrays are joined', async function () {
      const body = await sent({
        messages: [
          { role: 'system', content: 'Be brief.' },
          { role: 'developer', content: 'Answer in French.' },
          { role: 'system', content: [{ type: 'text', text: 'Part one. ' }, { type: 'text', text: 'Part two.' }] },
          { role: 'user', content: 'Hi' },
        ],
      });
      expect(body.model).to.equal('llama-3.3-70b');
      expect(body.messages).to.deep.equal([
        { role: 'system', content: 'Be brief.' },
        { role: 'system', content: 'Answer in French.' },
        { role: 'system', content: 'Part one. Part two.' },
        { role: 'user', content: 'Hi' },
      ]);
    });

    it('user content: a string stays a string', async function () {
      expect((await sent(user('Hello there'))).messages).to.deep.equal([{ role: 'user', content: 'Hello there' }]);
    });

    it('user content: one text part arrives as a plain string, several stay parts', async function () {
      expect((await sent(user([{ type: 'text', text: 'Only part' }]))).messages).to.deep.equal([{ role: 'user', content: 'Only part' }]);
      upstream.requests.length = 0;
      expect((await sent(user([{ type: 'text', text: 'One' }, { type: 'text', text: 'Two' }]))).messages).to.deep.equal([
        { role: 'user', content: [{ type: 'text', text: 'One' }, { type: 'text', text: 'Two' }] },
      ]);
    });

    it('user content: text + image_url with an https URL, to a vision model', async function () {
      const url = 'https://example.com/images/cat.png?size=large';
      const body = await sent(
        { model: VISION, ...user([{ type: 'text', text: 'What is this?' }, { type: 'image_url', image_url: { url } }]) },
        keyHeaders('openrouter'),
      );
      expect(upstream.requests[0]?.path).to.equal('/chat/completions');
      expect(body.model).to.equal('google/gemma-4-31b-it:free');
      expect(body.messages).to.deep.equal([
        { role: 'user', content: [{ type: 'text', text: 'What is this?' }, { type: 'image_url', image_url: { url } }] },
      ]);
    });

    it('user content: image_url with a base64 data URL arrives unchanged', async function () {
      const body = await sent({ model: VISION, ...user([{ type: 'text', text: 'Describe' }, { type: 'image_url', image_url: { url: PNG } }]) }, keyHeaders('openrouter'));
      expect(body.messages).to.deep.equal([
        { role: 'user', content: [{ type: 'text', text: 'Describe' }, { type: 'image_url', image_url: { url: PNG } }] },
      ]);
    });

    it('user content: a percent-encoded (non-base64) data URL arrives as base64', async function () {
      const svg = '<svg xmlns="http://www.w3.org/2000/svg"/>';
      const body = await sent(
        { model: VISION, ...user([{ type: 'image_url', image_url: { url: `data:image/svg+xml,${encodeURIComponent(svg)}` } }]) },
        keyHeaders('openrouter'),
      );
      const expected = `data:image/svg+xml;base64,${Buffer.from(svg).toString('base64')}`;
      expect(body.messages).to.deep.equal([{ role: 'user', content: [{ type: 'image_url', image_url: { url: expected } }] }]);
    });

    it('user content: an image URL that is neither http(s) nor a valid data URL is a 400 naming the part', async function () {
      for (const [url, detail] of [
        ['ftp://example.com/cat.png', 'must be an http(s) URL or a data URL'],
        ['not a url', 'must be an http(s) URL or a data URL'],
        ['data:image/svg+xml,%E0%A4%A', 'is not a valid data URL'],
      ] as const) {
        const reply = await chat(
          { model: VISION, messages: [{ role: 'system', content: 'x' }, { role: 'user', content: [{ type: 'text', text: 'x' }, { type: 'image_url', image_url: { url } }] }] },
          keyHeaders('openrouter'),
        );
        expect(reply.status, url).to.equal(400);
        expect(reply.json.error).to.deep.equal({
          message: `Validation failed: messages.1.content.1.image_url.url: ${detail}`,
          type: 'invalid_request_error',
          code: 400,
        });
      }
      expect(upstream.requests).to.have.length(0);
    });

    it('assistant text, assistant tool_calls and tool results arrive as OpenAI messages', async function () {
      const body = await sent({
        tools: [weather],
        messages: [
          { role: 'user', content: 'Weather in Paris and Oslo?' },
          { role: 'assistant', content: 'Let me check.' },
          {
            role: 'assistant',
            content: null,
            tool_calls: [
              { id: 'call_a', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } },
              { id: 'call_b', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Oslo"}' } },
            ],
          },
          { role: 'tool', tool_call_id: 'call_a', content: '21C, clear' },
          { role: 'tool', tool_call_id: 'call_b', content: [{ type: 'text', text: '4C, ' }, { type: 'text', text: 'snow' }] },
          { role: 'assistant', content: 'Paris: 21C. Oslo: 4C.', tool_calls: [] },
          { role: 'user', content: 'Thanks' },
        ],
      });
      expect(body.messages).to.deep.equal([
        { role: 'user', content: 'Weather in Paris and Oslo?' },
        { role: 'assistant', content: 'Let me check.' },
        {
          role: 'assistant',
          content: null,
          tool_calls: [
            { id: 'call_a', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } },
            { id: 'call_b', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Oslo"}' } },
          ],
        },
        { role: 'tool', tool_call_id: 'call_a', content: '21C, clear' },
        { role: 'tool', tool_call_id: 'call_b', content: '4C, snow' },
        { role: 'assistant', content: 'Paris: 21C. Oslo: 4C.' },
        { role: 'user', content: 'Thanks' },
      ]);
    });

    it('an assistant message with both text and tool_calls keeps both', async function () {
      const body = await sent({
        messages: [
          { role: 'user', content: 'Weather?' },
          { role: 'assistant', content: 'Checking.', tool_calls: [{ id: 'c1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Rome"}' } }] },
          { role: 'tool', tool_call_id: 'c1', content: 'sunny' },
        ],
      });
      expect((body.messages as Body[])[1]).to.deep.equal({
        role: 'assistant',
        content: 'Checking.',
        tool_calls: [{ id: 'c1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Rome"}' } }],
      });
    });
  });

  describe('sampling and limits', function () {
    it('temperature, top_p, max_tokens, seed, presence_penalty, frequency_penalty and user are forwarded', async function () {
      const body = await sent({
        ...user('Hi'),
        temperature: 0.7,
        top_p: 0.9,
        max_tokens: 256,
        seed: 42,
        presence_penalty: 0.5,
        frequency_penalty: -0.25,
        user: 'end-user-17',
      });
      expect(body).to.include({ temperature: 0.7, top_p: 0.9, max_tokens: 256, seed: 42, presence_penalty: 0.5, frequency_penalty: -0.25, user: 'end-user-17' });
    });

    it('none of them is sent when the caller leaves them out or sends null', async function () {
      const body = await sent({ ...user('Hi'), temperature: null, top_p: null, max_tokens: null, seed: null, stop: null });
      for (const field of ['temperature', 'top_p', 'max_tokens', 'seed', 'stop', 'presence_penalty', 'frequency_penalty', 'user', 'response_format', 'tools', 'tool_choice']) {
        expect(body, field).not.to.have.property(field);
      }
      // Freeway always streams upstream, with usage.
      expect(body).to.include({ stream: true });
      expect(body.stream_options).to.deep.equal({ include_usage: true });
    });

    it('max_completion_tokens becomes max_tokens, and wins over max_tokens', async function () {
      expect(await sent({ ...user('Hi'), max_completion_tokens: 100 })).to.include({ max_tokens: 100 });
      upstream.requests.length = 0;
      expect(await sent({ ...user('Hi'), max_tokens: 50, max_completion_tokens: 100 })).to.include({ max_tokens: 100 });
    });

    it('stop: a string becomes a one-element array, an array is kept', async function () {
      expect((await sent({ ...user('Hi'), stop: 'END' })).stop).to.deep.equal(['END']);
      upstream.requests.length = 0;
      expect((await sent({ ...user('Hi'), stop: ['\n\n', 'END', '###'] })).stop).to.deep.equal(['\n\n', 'END', '###']);
    });
  });

  describe('response_format', function () {
    it('json_object is forwarded', async function () {
      expect((await sent({ ...user('JSON please'), response_format: { type: 'json_object' } })).response_format).to.deep.equal({ type: 'json_object' });
    });

    const citySchema = {
      type: 'json_schema',
      json_schema: { name: 'city', strict: true, schema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] } },
    };

    it('json_schema is forwarded with its schema to providers that take structured outputs (cerebras)', async function () {
      const body = await sent({ ...user('JSON please'), response_format: citySchema });
      const format = body.response_format as { type: string; json_schema: Record<string, unknown> };
      expect(format.type).to.equal('json_schema');
      expect(format.json_schema.name).to.equal('city');
      expect(format.json_schema.schema).to.deep.equal({ type: 'object', properties: { name: { type: 'string' } }, required: ['name'] });
    });

    it('json_schema degrades to json_object for providers that do not take a schema (cloudflare)', async function () {
      const body = await sent({ ...user('JSON please'), response_format: citySchema, model: 'cloudflare/@cf/meta/llama-3.1-8b-instruct-fp8' }, keyHeaders('cloudflare'));
      expect(body.response_format).to.deep.equal({ type: 'json_object' });
    });

    it('text sends no response_format', async function () {
      expect(await sent({ ...user('Hi'), response_format: { type: 'text' } })).not.to.have.property('response_format');
    });
  });

  describe('tools and tool_choice', function () {
    it('tools arrive with name, description and parameters; a tool without parameters gets an empty object schema', async function () {
      const body = await sent({ ...user('Hi'), tools: [weather, { type: 'function', function: { name: 'now' } }] });
      expect(body.tools).to.deep.equal([weather, { type: 'function', function: { name: 'now', parameters: { type: 'object', properties: {} } } }]);
      expect(body).not.to.have.property('tool_choice');
    });

    for (const choice of ['auto', 'none', 'required', { type: 'function', function: { name: 'get_weather' } }]) {
      it(`tool_choice ${JSON.stringify(choice)} is forwarded`, async function () {
        const body = await sent({ ...user('Hi'), tools: [weather], tool_choice: choice });
        expect(body.tool_choice).to.deep.equal(choice);
        expect(body.tools).to.deep.equal([weather]);
      });
    }
  });

  describe('fields Freeway does not map', function () {
    it('unknown fields are ignored: 200, and they are not forwarded', async function () {
      const body = await sent({
        ...user('Hi'),
        logit_bias: { '50256': -100 },
        metadata: { team: 'a' },
        store: false,
        service_tier: 'auto',
        some_future_field: { nested: [1, 2, 3] },
      });
      for (const field of ['logit_bias', 'metadata', 'store', 'service_tier', 'some_future_field']) expect(body, field).not.to.have.property(field);
    });

    it('n: 2 is a 400 and nothing goes upstream; n: 1 is fine', async function () {
      const reply = await chat({ model: PINNED, ...user('Hi'), n: 2 });
      expect(reply.status).to.equal(400);
      expect(reply.json.error.type).to.equal('invalid_request_error');
      expect(reply.json.error.code).to.equal(400);
      expect(reply.json.error.message).to.match(/^Validation failed: n: .+/);
      expect(upstream.requests).to.have.length(0);
      const body = await sent({ ...user('Hi'), n: 1 });
      expect(body).not.to.have.property('n');
    });
  });

  describe('response mapping', function () {
    const finishing = (reason: string) =>
      upstream.handle((_req, res) =>
        openAISSE(res, [
          { choices: [{ index: 0, delta: { role: 'assistant', content: 'Once upon a ' }, finish_reason: null }] },
          { choices: [{ index: 0, delta: { content: 'time' }, finish_reason: null }] },
          { choices: [{ index: 0, delta: {}, finish_reason: reason }], usage },
        ]),
      );

    for (const reason of ['length', 'content_filter']) {
      it(`finish_reason ${reason} (non-streaming and streaming)`, async function () {
        finishing(reason);
        const reply = await chat({ model: PINNED, ...user('Tell a story'), max_tokens: 4 });
        expect(reply.status).to.equal(200);
        expect(reply.json.choices[0].finish_reason).to.equal(reason);
        expect(reply.json.choices[0].message).to.deep.equal({ role: 'assistant', content: 'Once upon a time' });
        expect(reply.json.usage).to.include({ prompt_tokens: 7, completion_tokens: 3, total_tokens: 10 });

        const streamed = await chat({ model: PINNED, ...user('Tell a story'), max_tokens: 4, stream: true });
        const events = sse(streamed.text);
        expect(events[events.length - 1]).to.equal('[DONE]');
        const chunks = events.slice(0, -1);
        expect(chunks[chunks.length - 1].choices[0].finish_reason).to.equal(reason);
        expect(chunks.slice(0, -1).every((chunk) => chunk.choices[0].finish_reason === null)).to.equal(true);
      });
    }

    it('reasoning_content deltas come back as message.reasoning_content, apart from the answer', async function () {
      upstream.handle((_req, res) =>
        openAISSE(res, [
          { choices: [{ index: 0, delta: { role: 'assistant', content: '', reasoning_content: 'The user greets. ' }, finish_reason: null }] },
          { choices: [{ index: 0, delta: { reasoning_content: 'Greet back.' }, finish_reason: null }] },
          { choices: [{ index: 0, delta: { content: 'Hi ' }, finish_reason: null }] },
          { choices: [{ index: 0, delta: { content: 'there!' }, finish_reason: null }] },
          { choices: [{ index: 0, delta: {}, finish_reason: 'stop' }], usage },
        ]),
      );
      const reply = await chat({ model: PINNED, ...user('Hello') });
      expect(reply.status).to.equal(200);
      expect(reply.json.choices[0].message).to.deep.equal({ role: 'assistant', content: 'Hi there!', reasoning_content: 'The user greets. Greet back.' });
      expect(reply.json.choices[0].finish_reason).to.equal('stop');

      const streamed = await chat({ model: PINNED, ...user('Hello'), stream: true });
      const deltas = sse(streamed.text).slice(0, -1).map((chunk) => chunk.choices[0].delta);
      expect(deltas[0]).to.include({ role: 'assistant' });
      const reasoning = deltas.filter((delta) => 'reasoning_content' in delta);
      expect(reasoning.map((delta) => delta.reasoning_content).join('')).to.equal('The user greets. Greet back.');
      expect(reasoning.every((delta) => !('content' in delta))).to.equal(true);
      expect(deltas.map((delta) => delta.content ?? '').join('')).to.equal('Hi there!');
      // Reasoning comes before the answer.
      const firstAnswer = deltas.findIndex((delta) => typeof delta.content === 'string' && delta.content !== '');
      expect(deltas.findLastIndex((delta) => 'reasoning_content' in delta)).to.be.lessThan(firstAnswer);
    });

    it('OpenRouter-style delta.reasoning is passed through as reasoning_content too', async function () {
      upstream.handle((_req, res) =>
        openAISSE(res, [
          { choices: [{ index: 0, delta: { role: 'assistant', reasoning: 'Thinking.' }, finish_reason: null }] },
          { choices: [{ index: 0, delta: { content: 'Done.' }, finish_reason: 'stop' }], usage },
        ]),
      );
      const reply = await chat({ model: VISION, ...user('Hello') }, keyHeaders('openrouter'));
      expect(reply.json.choices[0].message).to.deep.equal({ role: 'assistant', content: 'Done.', reasoning_content: 'Thinking.' });
    });

    it('a tool call streamed upstream comes back non-streaming as message.tool_calls with content null', async function () {
      upstream.handle((_req, res) =>
        openAISSE(res, [
          { choices: [{ index: 0, delta: { role: 'assistant', tool_calls: [{ index: 0, id: 'call_x', type: 'function', function: { name: 'get_weather', arguments: '{"ci' } }] }, finish_reason: null }] },
          { choices: [{ index: 0, delta: { tool_calls: [{ index: 0, function: { arguments: 'ty":"Lima"}' } }] }, finish_reason: null }] },
          { choices: [{ index: 0, delta: {}, finish_reason: 'tool_calls' }], usage },
        ]),
      );
      const reply = await chat({ model: PINNED, ...user('Weather in Lima?'), tools: [weather] });
      expect(reply.json.choices[0]).to.deep.include({ finish_reason: 'tool_calls' });
      expect(reply.json.choices[0].message).to.deep.equal({
        role: 'assistant',
        content: null,
        tool_calls: [{ id: 'call_x', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Lima"}' } }],
      });
    });
  });

  describe('alias narrowing', function () {
    const hi = user('Hi');
    const picture = user([{ type: 'text', text: 'What is this?' }, { type: 'image_url', image_url: { url: 'https://example.com/cat.png' } }]);

    it('free:auto with an image part only picks vision models', async function () {
      // The first free:auto model of openrouter cannot see images; without an image it is the one picked.
      const plain = await chat({ model: 'free:auto', ...hi }, keyHeaders('openrouter'));
      expect(plain.status).to.equal(200);
      expect(plain.headers.get('x-freeway-model')).to.equal('openrouter/nvidia/nemotron-3-ultra-550b-a55b:free');
      expect(upstream.requests[0]?.body?.model).to.equal('nvidia/nemotron-3-ultra-550b-a55b:free');

      upstream.requests.length = 0;
      const seeing = await chat({ model: 'free:auto', ...picture }, keyHeaders('openrouter'));
      expect(seeing.status).to.equal(200);
      expect(seeing.headers.get('x-freeway-model')).to.equal(VISION);
      expect(upstream.requests.map((req) => req.body?.model)).to.deep.equal(['google/gemma-4-31b-it:free']);
      const catalogModel = freeway.catalog.byId.get(seeing.headers.get('x-freeway-model') as string);
      expect(catalogModel && 'spec' in catalogModel && catalogModel.spec.capabilities).to.include('vision');
    });

    it('free:auto with an image part and only keys without a vision model is a 400 that says so', async function () {
      const reply = await chat({ model: 'free:auto', ...picture }, keyHeaders('cerebras'));
      expect(reply.status).to.equal(400);
      expect(reply.json.error.type).to.equal('invalid_request_error');
      expect(reply.json.error.message).to.match(/^Your keys \(X-Cerebras-Key\) have no model for free:auto that takes images; keys of .+ do\.$/);
      expect(upstream.requests).to.have.length(0);
    });

    describe('free:auto with tools only picks tool-use models', function () {
      // Cloudflare's first four free:auto models are "not found" upstream; the fifth,
      // @cf/meta/llama-3.2-3b-instruct, is the first one without tool use.
      const gone = new Set([
        '@cf/meta/llama-3.3-70b-instruct-fp8-fast',
        '@cf/meta/llama-3.1-8b-instruct-fp8',
        '@cf/meta/llama-4-scout-17b-16e-instruct',
        '@cf/meta/llama-3.2-11b-vision-instruct',
      ]);
      const NO_TOOLS = '@cf/meta/llama-3.2-3b-instruct';

      beforeEach(function () {
        upstream.handle((req, res) => {
          if (gone.has(String(req.body?.model))) openAIError(res, 404, `The model ${String(req.body?.model)} does not exist`);
          else openAIText(res, 'Hello', req);
        });
      });

      const seenModels = () => upstream.requests.map((req) => String(req.body?.model));

      it('without tools, the first model that answers is the one without tool use', async function () {
        const reply = await chat({ model: 'free:auto', ...hi }, keyHeaders('cloudflare'));
        expect(reply.status, reply.text).to.equal(200);
        expect(reply.headers.get('x-freeway-model')).to.equal(`cloudflare/${NO_TOOLS}`);
        expect(seenModels()).to.deep.equal([...gone, NO_TOOLS]);
        expect(upstream.requests[4]?.path).to.match(/^\/accounts\/[0-9a-f]+\/ai\/v1\/chat\/completions$/);
      });

      it('with tools, that model is skipped', async function () {
        const reply = await chat({ model: 'free:auto', ...hi, tools: [weather] }, keyHeaders('cloudflare'));
        expect(reply.status, reply.text).to.equal(200);
        expect(reply.headers.get('x-freeway-model')).to.equal('cloudflare/@cf/mistralai/mistral-small-3.1-24b-instruct');
        expect(seenModels()).to.deep.equal([...gone, '@cf/mistralai/mistral-small-3.1-24b-instruct']);
        for (const model of seenModels()) {
          const entry = freeway.catalog.byId.get(`cloudflare/${model}`);
          expect(entry && 'spec' in entry && entry.spec.capabilities, model).to.include('tool-use');
        }
      });

      it('with legacy functions, that model is skipped too; with function_call none it is not', async function () {
        const functions = [weather.function];
        const reply = await chat({ model: 'free:auto', ...hi, functions }, keyHeaders('cloudflare'));
        expect(reply.status, reply.text).to.equal(200);
        expect(reply.headers.get('x-freeway-model')).to.equal('cloudflare/@cf/mistralai/mistral-small-3.1-24b-instruct');
        const none = await chat({ model: 'free:auto', ...hi, functions, function_call: 'none' }, keyHeaders('cloudflare'));
        expect(none.status, none.text).to.equal(200);
        expect(none.headers.get('x-freeway-model')).to.equal(`cloudflare/${NO_TOOLS}`);
      });

      it('with tools but tool_choice none, nothing is narrowed', async function () {
        const reply = await chat({ model: 'free:auto', ...hi, tools: [weather], tool_choice: 'none' }, keyHeaders('cloudflare'));
        expect(reply.status, reply.text).to.equal(200);
        expect(reply.headers.get('x-freeway-model')).to.equal(`cloudflare/${NO_TOOLS}`);
      });
    });
  });
});
