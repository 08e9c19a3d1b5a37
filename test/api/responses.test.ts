/**
 * `POST /v1/responses` with the official `openai` SDK as the client: Freeway on
 * an ephemeral 127.0.0.1 port, its providers pointed at a fake upstream on
 * 127.0.0.1. Assertions are on what the SDK hands its caller, on the raw wire
 * where the SDK hides it, and on what the upstream was sent.
 */
import { expect } from 'chai';
import OpenAI from 'openai';
import { zodTextFormat } from 'openai/helpers/zod';
import type { FunctionTool, ResponseInputItem, ResponseStreamEvent } from 'openai/resources/responses/responses';
import { z } from 'zod';
import { startFreeway, type RunningFreeway } from '../support/freeway.ts';
import { keyHeaders, testKeys } from '../support/keys.ts';
import { freewayOverOneUpstream, openaiClient, rejection } from '../support/suite.ts';
import { checkAgainstSDKTypes, postResponses } from '../support/responses.ts';
import { responseEvents } from '../support/sse.ts';
import { geminiSSE, openAIError, openAISSE, openAIText, openAIToolCall, startUpstream, usage, type FakeUpstream, type SeenRequest } from '../support/upstream.ts';
import { C1, CEREBRAS_FIRST } from '../support/current-models.ts';

const weatherTool: FunctionTool = {
  type: 'function',
  name: 'get_weather',
  description: 'Current weather for a city',
  parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'], additionalProperties: false },
  strict: true,
};

const chunk = (delta: Record<string, unknown>, finish: string | null = null) => ({ choices: [{ index: 0, delta, finish_reason: finish }] });

const client = (freeway: RunningFreeway, headers: Record<string, string> = keyHeaders('cerebras')): OpenAI => openaiClient(freeway, headers);

const seen = (upstream: FakeUpstream, index = 0): SeenRequest => {
  const request = upstream.requests[index];
  if (!request) throw new Error(`the upstream saw no request #${index}`);
  return request;
};

describe('POST /v1/responses with the openai SDK', function () {
  let upstream: FakeUpstream;
  let freeway: RunningFreeway;
  let openai: OpenAI;

  const suite = freewayOverOneUpstream(['cerebras', 'mistral', 'groq', 'openrouter']);
  before(function () {
    ({ upstream, freeway } = suite);
    openai = client(freeway);
  });

  describe('responses.create', function () {
    it('answers a string input with a completed Response: a message item, usage, the echoed settings', async function () {
      const { data: response, response: raw } = await openai.responses
        .create({ model: 'free:auto', input: 'Say hello', instructions: 'Be brief.', metadata: { run: 'test-1' }, temperature: 0.3, max_output_tokens: 200 })
        .withResponse();

      expect(response.id).to.match(/^resp_[0-9a-f]{32}$/);
      expect(response.object).to.equal('response');
      expect(response.status).to.equal('completed');
      expect(response.model).to.equal('free:auto');
      expect(response.created_at).to.be.within(Date.now() / 1000 - 60, Date.now() / 1000 + 60);
      expect(response.completed_at).to.be.a('number');
      expect(response.error).to.equal(null);
      expect(response.incomplete_details).to.equal(null);
      expect(response.output).to.have.length(1);
      const [message] = response.output;
      expect(message).to.deep.include({ type: 'message', role: 'assistant', status: 'completed' });
      expect(message?.type === 'message' && message.id).to.match(/^msg_[0-9a-f]{32}$/);
      expect(message?.type === 'message' && message.content).to.deep.equal([{ type: 'output_text', text: 'Hello there friend', annotations: [] }]);
      expect(response.output_text).to.equal('Hello there friend');
      expect(response.usage).to.deep.equal({ input_tokens: 7, output_tokens: 3, total_tokens: 10 });
      expect(response.instructions).to.equal('Be brief.');
      expect(response.metadata).to.deep.equal({ run: 'test-1' });
      expect(response.temperature).to.equal(0.3);
      expect(response.max_output_tokens).to.equal(200);
      expect(response.top_p).to.equal(null);
      expect(response.tools).to.deep.equal([]);
      expect(response.tool_choice).to.equal('auto');
      expect(response.parallel_tool_calls).to.equal(true);
      expect(response.text).to.deep.equal({ format: { type: 'text' } });
      expect((response as unknown as { store: boolean }).store).to.equal(false);

      expect(raw.headers.get('x-freeway-provider')).to.equal('cerebras');
      expect(raw.headers.get('x-freeway-model')).to.equal(`cerebras/${CEREBRAS_FIRST}`);
      expect(raw.headers.get('x-freeway-attempts')).to.match(new RegExp(`^cerebras\\/${C1} 200 \\d+ms$`));

      const request = seen(upstream);
      expect(request.path).to.equal('/chat/completions');
      expect(request.body?.model).to.equal(CEREBRAS_FIRST);
      expect(request.body?.messages).to.deep.equal([
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'Say hello' },
      ]);
      expect(request.body?.temperature).to.equal(0.3);
      expect(request.body?.max_tokens).to.equal(200);
      expect(request.headers.authorization).to.equal(`Bearer ${testKeys.cerebras}`);
      expect(JSON.stringify(request.headers)).not.to.include('placeholder');
    });

    it('maps message items of every role and content part to the upstream messages', async function () {
      await openai.responses.create({
        model: 'free:auto',
        top_p: 0.5,
        input: [
          { role: 'developer', content: 'Answer in English.' },
          { role: 'system', content: [{ type: 'input_text', text: 'Be kind.' }] },
          { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'Hi ' }, { type: 'input_text', text: 'there' }] },
          { type: 'message', role: 'assistant', id: 'msg_1', status: 'completed', content: [{ type: 'output_text', text: 'Hello!', annotations: [] }] },
          { type: 'reasoning', id: 'rs_1', summary: [{ type: 'summary_text', text: 'thinking' }] },
          { role: 'user', content: 'How are you?' },
        ],
      });
      const request = seen(upstream);
      expect(request.body?.top_p).to.equal(0.5);
      expect(request.body?.messages).to.deep.equal([
        { role: 'system', content: 'Answer in English.' },
        { role: 'system', content: 'Be kind.' },
        { role: 'user', content: [{ type: 'text', text: 'Hi ' }, { type: 'text', text: 'there' }] },
        { role: 'assistant', content: 'Hello!' },
        { role: 'user', content: 'How are you?' },
      ]);
    });

    it('sends input_image parts upstream as image_url and picks a model that can see', async function () {
      const image = 'data:image/png;base64,iVBORw0KGgo=';
      const response = await client(freeway, keyHeaders('cerebras', 'openrouter')).responses.create({
        model: 'free:auto',
        input: [{ role: 'user', content: [{ type: 'input_text', text: 'What is this?' }, { type: 'input_image', image_url: image, detail: 'auto' }] }],
      });
      expect(response.output_text).to.equal('Hello there friend');
      const request = seen(upstream);
      expect(request.body?.model).to.equal('google/gemma-4-31b-it:free');
      const content = (request.body?.messages as Array<{ content: unknown }>)[0]?.content;
      expect(content).to.deep.equal([
        { type: 'text', text: 'What is this?' },
        { type: 'image_url', image_url: { url: image } },
      ]);
    });

    it('an answer cut at max_output_tokens is incomplete with reason max_output_tokens', async function () {
      upstream.handle((_req, res) => openAISSE(res, [chunk({ role: 'assistant', content: 'Once upon' }), chunk({}, 'length'), { choices: [], usage }]));
      const response = await openai.responses.create({ model: 'free:auto', input: 'Tell a story', max_output_tokens: 16 });
      expect(response.status).to.equal('incomplete');
      expect(response.incomplete_details).to.deep.equal({ reason: 'max_output_tokens' });
      expect(response.completed_at).to.equal(undefined);
      expect(response.output[0]).to.deep.include({ type: 'message', status: 'incomplete' });
      expect(response.output_text).to.equal('Once upon');
      expect(seen(upstream).body?.max_tokens).to.equal(16);
    });

    it('an answer stopped by the content filter is incomplete with reason content_filter', async function () {
      upstream.handle((_req, res) => openAISSE(res, [chunk({ role: 'assistant', content: 'I' }), chunk({}, 'content_filter'), { choices: [], usage }]));
      const response = await openai.responses.create({ model: 'free:auto', input: 'Hi' });
      expect(response.status).to.equal('incomplete');
      expect(response.incomplete_details).to.deep.equal({ reason: 'content_filter' });
    });

    it('an empty answer is one message with empty text, streamed or not', async function () {
      upstream.handle((_req, res) => openAISSE(res, [chunk({ role: 'assistant' }), chunk({}, 'stop'), { choices: [], usage }]));
      const response = await openai.responses.create({ model: 'free:auto', input: 'Say nothing' });
      expect(response.output).to.have.length(1);
      expect(response.output[0]).to.deep.include({ type: 'message', status: 'completed' });
      expect(response.output_text).to.equal('');
      const stream = openai.responses.stream({ model: 'free:auto', input: 'Say nothing' });
      const types: string[] = [];
      for await (const event of stream) types.push(event.type);
      expect(types).to.deep.equal([
        'response.created',
        'response.in_progress',
        'response.output_item.added',
        'response.content_part.added',
        'response.output_text.done',
        'response.content_part.done',
        'response.output_item.done',
        'response.completed',
      ]);
      expect((await stream.finalResponse()).output_text).to.equal('');
    });

    it('reports no usage when the upstream reported none, rather than zeros', async function () {
      upstream.handle((_req, res) => openAISSE(res, [chunk({ role: 'assistant', content: 'Hi' }), chunk({}, 'stop')]));
      const response = await openai.responses.create({ model: 'free:auto', input: 'Hi' });
      expect(response.output_text).to.equal('Hi');
      expect(response).not.to.have.property('usage');
    });

    it('carries the counts the upstream reported and no details it left out', async function () {
      upstream.handle((_req, res) => openAISSE(res, [chunk({ role: 'assistant', content: 'Hi' }), chunk({}, 'stop'), { choices: [], usage: { prompt_tokens: 5, completion_tokens: 2, total_tokens: 7, prompt_tokens_details: { cached_tokens: 0 } } }]));
      const response = await openai.responses.create({ model: 'free:auto', input: 'Hi' });
      expect(response.usage).to.deep.equal({ input_tokens: 5, input_tokens_details: { cached_tokens: 0 }, output_tokens: 2, total_tokens: 7 });
    });

    it('carries cached and reasoning token counts when the upstream reports them', async function () {
      const reported = { prompt_tokens: 50, completion_tokens: 20, total_tokens: 70, prompt_tokens_details: { cached_tokens: 32 }, completion_tokens_details: { reasoning_tokens: 12 } };
      upstream.handle((_req, res) => openAISSE(res, [chunk({ role: 'assistant', content: 'Hi' }), chunk({}, 'stop'), { choices: [], usage: reported }]));
      const response = await openai.responses.create({ model: 'free:auto', input: 'Hi' });
      expect(response.usage).to.deep.equal({
        input_tokens: 50,
        input_tokens_details: { cached_tokens: 32 },
        output_tokens: 20,
        output_tokens_details: { reasoning_tokens: 12 },
        total_tokens: 70,
      });
    });

    it('reasoning.effort goes to a model that takes an effort, and is echoed', async function () {
      const response = await openai.responses.create({ model: 'cerebras/gpt-oss-120b', input: 'Hi', reasoning: { effort: 'low', summary: 'auto' } });
      expect(response.reasoning).to.deep.equal({ effort: 'low' });
      expect(seen(upstream).body?.model).to.equal('gpt-oss-120b');
      expect(seen(upstream).body?.reasoning_effort).to.equal('low');
    });

    it('reasoning.effort is not sent to a model that takes none', async function () {
      await openai.responses.create({ model: 'cerebras/llama-3.3-70b', input: 'Hi', reasoning: { effort: 'high' } });
      expect(seen(upstream).body).not.to.have.property('reasoning_effort');
    });

    it('returns the reasoning of a reasoning model as a reasoning item before the message', async function () {
      upstream.handle((_req, res) =>
        openAISSE(res, [chunk({ role: 'assistant', reasoning_content: 'The user greets. ' }), chunk({ reasoning_content: 'Greet back.' }), chunk({ content: 'Hello!' }), chunk({}, 'stop'), { choices: [], usage }]),
      );
      const response = await openai.responses.create({ model: 'free:auto', input: 'Hi' });
      expect(response.output.map((item) => item.type)).to.deep.equal(['reasoning', 'message']);
      const [reasoning] = response.output;
      expect(reasoning?.type === 'reasoning' && reasoning.id).to.match(/^rs_[0-9a-f]{32}$/);
      expect(reasoning?.type === 'reasoning' && reasoning.summary).to.deep.equal([{ type: 'summary_text', text: 'The user greets. Greet back.' }]);
      expect(response.output_text).to.equal('Hello!');
    });
  });

  describe('function tools', function () {
    it('returns a function_call item, and a function_call_output round trip reaches the upstream as a tool message', async function () {
      upstream.handle((_req, res) => openAIToolCall(res, 'get_weather', '{"city":"Paris"}'));
      const input: ResponseInputItem[] = [{ role: 'user', content: 'Weather in Paris?' }];
      const first = await openai.responses.create({ model: 'free:tool-use', input, tools: [weatherTool], tool_choice: 'auto', parallel_tool_calls: false });

      expect(first.status).to.equal('completed');
      expect(first.output).to.have.length(1);
      const call = first.output[0];
      if (call?.type !== 'function_call') throw new Error(`expected a function_call, got ${call?.type}`);
      expect(call.id).to.match(/^fc_[0-9a-f]{32}$/);
      expect(call).to.deep.include({ call_id: 'call_1', name: 'get_weather', arguments: '{"city":"Paris"}', status: 'completed' });
      expect(first.tools).to.deep.equal([weatherTool]);
      expect(first.parallel_tool_calls).to.equal(false);
      expect(first.output_text).to.equal('');

      const request = seen(upstream);
      expect(request.body?.tools).to.deep.equal([
        { type: 'function', function: { name: 'get_weather', description: 'Current weather for a city', parameters: weatherTool.parameters, strict: true } },
      ]);
      expect(request.body?.tool_choice).to.equal('auto');
      expect(request.body?.parallel_tool_calls).to.equal(false);

      upstream.handle((req, res) => openAIText(res, 'It is sunny in Paris.', req));
      const second = await openai.responses.create({
        model: 'free:tool-use',
        tools: [weatherTool],
        input: [...input, ...first.output.filter((item) => item.type === 'function_call'), { type: 'function_call_output', call_id: call.call_id, output: '{"temperature":21,"sky":"clear"}' }],
      });
      expect(second.output_text).to.equal('It is sunny in Paris.');
      expect(seen(upstream, 1).body?.messages).to.deep.equal([
        { role: 'user', content: 'Weather in Paris?' },
        { role: 'assistant', content: null, tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } }] },
        { role: 'tool', tool_call_id: 'call_1', content: '{"temperature":21,"sky":"clear"}' },
      ]);
    });

    it('parallel_tool_calls goes upstream only when it was set and there are tools', async function () {
      upstream.handle((_req, res) => openAIToolCall(res, 'get_weather', '{"city":"Oslo"}'));
      await openai.responses.create({ model: 'free:tool-use', input: 'Weather?', tools: [weatherTool], parallel_tool_calls: true });
      await openai.responses.create({ model: 'free:tool-use', input: 'Weather?', tools: [weatherTool] });
      upstream.handle((req, res) => openAIText(res, 'Hi', req));
      const plain = await openai.responses.create({ model: 'free:auto', input: 'Hi', parallel_tool_calls: false });
      expect(seen(upstream, 0).body?.parallel_tool_calls).to.equal(true);
      expect(seen(upstream, 1).body).not.to.have.property('parallel_tool_calls');
      expect(seen(upstream, 2).body).not.to.have.property('parallel_tool_calls');
      expect(plain.parallel_tool_calls).to.equal(false);
    });

    it('maps tool_choice required and a named function to the upstream tool_choice', async function () {
      upstream.handle((_req, res) => openAIToolCall(res, 'get_weather', '{"city":"Rome"}'));
      await openai.responses.create({ model: 'free:tool-use', input: 'Weather?', tools: [weatherTool], tool_choice: 'required' });
      await openai.responses.create({ model: 'free:tool-use', input: 'Weather?', tools: [weatherTool], tool_choice: { type: 'function', name: 'get_weather' } });
      expect(seen(upstream, 0).body?.tool_choice).to.equal('required');
      expect(seen(upstream, 1).body?.tool_choice).to.deep.equal({ type: 'function', function: { name: 'get_weather' } });
    });
  });

  describe('structured output', function () {
    const schema = { type: 'object', properties: { city: { type: 'string' }, population: { type: 'integer' } }, required: ['city', 'population'], additionalProperties: false };

    it('text.format json_schema reaches the upstream as response_format json_schema', async function () {
      upstream.handle((req, res) => openAIText(res, '{"city":"Paris","population":2100000}', req));
      const response = await client(freeway, keyHeaders('mistral')).responses.create({
        model: 'mistral/mistral-small-latest',
        input: 'Largest city of France?',
        text: { format: { type: 'json_schema', name: 'city', schema, strict: true } },
      });
      expect(JSON.parse(response.output_text)).to.deep.equal({ city: 'Paris', population: 2100000 });
      expect(response.text?.format).to.deep.equal({ type: 'json_schema', name: 'city', schema, strict: true });
      const format = seen(upstream).body?.response_format as { type: string; json_schema: Record<string, unknown> };
      expect(format.type).to.equal('json_schema');
      expect(format.json_schema).to.deep.include({ name: 'city', schema });
    });

    it('text.format json_object reaches the upstream as response_format json_object', async function () {
      upstream.handle((req, res) => openAIText(res, '{"ok":true}', req));
      const response = await openai.responses.create({ model: 'free:auto', input: 'JSON please', text: { format: { type: 'json_object' } } });
      expect(response.output_text).to.equal('{"ok":true}');
      expect(seen(upstream).body?.response_format).to.deep.equal({ type: 'json_object' });
    });

    it('responses.parse with zodTextFormat hands back the parsed object', async function () {
      upstream.handle((req, res) => openAIText(res, '{"city":"Rome","population":2800000}', req));
      const City = z.object({ city: z.string(), population: z.number().int() });
      const response = await client(freeway, keyHeaders('mistral')).responses.parse({
        model: 'mistral/mistral-small-latest',
        input: 'Capital of Italy?',
        text: { format: zodTextFormat(City, 'city') },
      });
      expect(response.output_parsed).to.deep.equal({ city: 'Rome', population: 2800000 });
      const format = seen(upstream).body?.response_format as { json_schema: { name: string; schema: { properties: Record<string, unknown> } } };
      expect(format.json_schema.name).to.equal('city');
      expect(Object.keys(format.json_schema.schema.properties)).to.deep.equal(['city', 'population']);
    });
  });

  describe('streaming', function () {
    it('streams the documented event sequence, and stream.finalResponse() is the completed Response', async function () {
      const stream = openai.responses.stream({ model: 'free:auto', input: 'Say hello' });
      const events: ResponseStreamEvent[] = [];
      for await (const event of stream) events.push(event);
      const final = await stream.finalResponse();

      expect(events.map((event) => event.type)).to.deep.equal([
        'response.created',
        'response.in_progress',
        'response.output_item.added',
        'response.content_part.added',
        'response.output_text.delta',
        'response.output_text.delta',
        'response.output_text.delta',
        'response.output_text.done',
        'response.content_part.done',
        'response.output_item.done',
        'response.completed',
      ]);
      expect(events.map((event) => event.sequence_number)).to.deep.equal(events.map((_, index) => index));
      const deltas = events.flatMap((event) => (event.type === 'response.output_text.delta' ? [event.delta] : []));
      expect(deltas.join('')).to.equal('Hello there friend');
      const created = events[0];
      expect(created?.type === 'response.created' && created.response.status).to.equal('in_progress');
      expect(final.id).to.equal(created?.type === 'response.created' ? created.response.id : undefined);
      expect(final.status).to.equal('completed');
      expect(final.output_text).to.equal('Hello there friend');
      expect(final.usage).to.deep.equal({ input_tokens: 7, output_tokens: 3, total_tokens: 10 });
      expect(seen(upstream).body?.stream).to.equal(true);
    });

    it('responses.create({stream: true}) streams function call arguments and the completed function_call', async function () {
      upstream.handle((_req, res) => openAIToolCall(res, 'get_weather', '{"city":"Paris"}'));
      const stream = await openai.responses.create({ model: 'free:tool-use', input: 'Weather in Paris?', tools: [weatherTool], stream: true });
      const events: ResponseStreamEvent[] = [];
      for await (const event of stream) events.push(event);
      expect(events.map((event) => event.type)).to.deep.equal([
        'response.created',
        'response.in_progress',
        'response.output_item.added',
        'response.function_call_arguments.delta',
        'response.function_call_arguments.delta',
        'response.function_call_arguments.done',
        'response.output_item.done',
        'response.completed',
      ]);
      const done = events.find((event) => event.type === 'response.output_item.done');
      expect(done?.type === 'response.output_item.done' && done.item).to.deep.include({ type: 'function_call', call_id: 'call_1', name: 'get_weather', arguments: '{"city":"Paris"}', status: 'completed' });
      const completed = events.at(-1);
      expect(completed?.type === 'response.completed' && completed.response.output).to.have.length(1);
    });

    it('streams reasoning as a reasoning summary before the message', async function () {
      upstream.handle((_req, res) => openAISSE(res, [chunk({ role: 'assistant', reasoning_content: 'Think.' }), chunk({ content: 'Answer.' }), chunk({}, 'stop'), { choices: [], usage }]));
      const stream = openai.responses.stream({ model: 'free:auto', input: 'Hi' });
      const types: string[] = [];
      for await (const event of stream) types.push(event.type);
      expect(types).to.deep.equal([
        'response.created',
        'response.in_progress',
        'response.output_item.added',
        'response.reasoning_summary_part.added',
        'response.reasoning_summary_text.delta',
        'response.reasoning_summary_text.done',
        'response.reasoning_summary_part.done',
        'response.output_item.done',
        'response.output_item.added',
        'response.content_part.added',
        'response.output_text.delta',
        'response.output_text.done',
        'response.content_part.done',
        'response.output_item.done',
        'response.completed',
      ]);
      const final = await stream.finalResponse();
      expect(final.output.map((item) => item.type)).to.deep.equal(['reasoning', 'message']);
      expect(final.output_text).to.equal('Answer.');
    });

    it('text then two tool calls in one answer: the message is done before the calls are added, each call added before it is done', async function () {
      upstream.handle((_req, res) =>
        openAISSE(res, [
          chunk({ role: 'assistant', content: 'Checking both.' }),
          chunk({ tool_calls: [{ index: 0, id: 'call_a', type: 'function', function: { name: 'get_weather', arguments: '{"city":' } }] }),
          chunk({ tool_calls: [{ index: 0, function: { arguments: '"Paris"}' } }] }),
          chunk({ tool_calls: [{ index: 1, id: 'call_b', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Rome"}' } }] }),
          chunk({}, 'tool_calls'),
          { choices: [], usage },
        ]),
      );
      const stream = openai.responses.stream({ model: 'free:tool-use', input: 'Weather in Paris and Rome?', tools: [weatherTool] });
      const events: ResponseStreamEvent[] = [];
      for await (const event of stream) events.push(event);
      const summary = events.flatMap((event) =>
        event.type === 'response.output_item.added' || event.type === 'response.output_item.done' ? [`${event.type.slice(21)} ${event.output_index} ${event.item.type}`] : [],
      );
      // Tool calls may overlap (the upstream finishes them all at its end); the message is done first.
      expect(summary.slice(0, 2)).to.deep.equal(['added 0 message', 'done 0 message']);
      expect(summary.slice(2).sort()).to.deep.equal(['added 1 function_call', 'added 2 function_call', 'done 1 function_call', 'done 2 function_call']);
      for (const index of [1, 2]) expect(summary.indexOf(`added ${index} function_call`)).to.be.below(summary.indexOf(`done ${index} function_call`));
      const final = await stream.finalResponse();
      expect(final.output_text).to.equal('Checking both.');
      expect(final.output.flatMap((item) => (item.type === 'function_call' ? [[item.call_id, item.arguments]] : []))).to.deep.equal([
        ['call_a', '{"city":"Paris"}'],
        ['call_b', '{"city":"Rome"}'],
      ]);
    });

    it('a stream cut at max_output_tokens ends with response.incomplete', async function () {
      upstream.handle((_req, res) => openAISSE(res, [chunk({ role: 'assistant', content: 'Once' }), chunk({}, 'length'), { choices: [], usage }]));
      const stream = openai.responses.stream({ model: 'free:auto', input: 'Story', max_output_tokens: 16 });
      const types: string[] = [];
      for await (const event of stream) types.push(event.type);
      expect(types.at(-1)).to.equal('response.incomplete');
      const final = await stream.finalResponse();
      expect(final.status).to.equal('incomplete');
      expect(final.incomplete_details).to.deep.equal({ reason: 'max_output_tokens' });
    });

    it('an upstream failure after the first byte is an error event that the SDK throws, never a clean end', async function () {
      upstream.handle((_req, res) => {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.write(`data: ${JSON.stringify({ id: 'x', object: 'chat.completion.chunk', created: 1, model: 'm', ...chunk({ role: 'assistant', content: 'partial ' }) })}\n\n`, () => {
          setTimeout(() => res.socket?.destroy(), 20);
        });
      });
      const raw = await postResponses(freeway.url, { model: 'free:auto', input: 'Hi', stream: true }, keyHeaders('cerebras'));
      const events = responseEvents(raw.text);
      const last = events.at(-1);
      expect(last.type).to.equal('error');
      expect(last.code).to.equal('freeway_provider_error');
      expect(last.param).to.equal(null);
      expect(last.message).to.match(/^The stream from cerebras failed after it started: /);
      expect(events.some((event) => event.type === 'response.completed' || event.type === 'response.failed')).to.equal(false);
      expect(events.map((event) => event.sequence_number)).to.deep.equal(events.map((_, index) => index));

      const iterated = await rejection(async () => {
        const stream = await openai.responses.create({ model: 'free:auto', input: 'Hi', stream: true });
        for await (const _event of stream);
      });
      expect(iterated.message).to.match(/The stream from cerebras failed after it started/);

      const helper = openai.responses.stream({ model: 'free:auto', input: 'Hi' });
      const final = await rejection(() => helper.finalResponse());
      expect(final.message).to.match(/The stream from cerebras failed after it started/);
    });

    it('every event of text, tool-call, reasoning, incomplete and failed streams matches the SDK types, as do Response objects', async function () {
      this.timeout(30000);
      const scenarios: Array<{ handler: Parameters<FakeUpstream['handle']>[0]; body: Record<string, unknown> }> = [
        { handler: (req, res) => openAIText(res, 'Hello there friend', req), body: { input: 'Hi', metadata: { a: 'b' }, text: { format: { type: 'json_object' } } } },
        { handler: (_req, res) => openAIToolCall(res, 'get_weather', '{"city":"Paris"}'), body: { input: 'Weather?', tools: [weatherTool], tool_choice: { type: 'function', name: 'get_weather' } } },
        {
          handler: (_req, res) => openAISSE(res, [chunk({ role: 'assistant', reasoning_content: 'Hmm.' }), chunk({ content: 'Yes.' }), chunk({}, 'stop'), { choices: [], usage: { ...usage, prompt_tokens_details: { cached_tokens: 2 }, completion_tokens_details: { reasoning_tokens: 1 } } }]),
          body: { input: 'Hi', max_output_tokens: 100, temperature: 1, top_p: 1, reasoning: { effort: 'medium' } },
        },
        { handler: (_req, res) => openAISSE(res, [chunk({ role: 'assistant', content: 'Cut' }), chunk({}, 'length')]), body: { input: 'Hi' } },
        {
          handler: (_req, res) => {
            res.writeHead(200, { 'content-type': 'text/event-stream' });
            res.write(`data: ${JSON.stringify({ id: 'x', object: 'chat.completion.chunk', created: 1, model: 'm', ...chunk({ content: 'partial' }) })}\n\n`, () => setTimeout(() => res.socket?.destroy(), 20));
          },
          body: { input: 'Hi' },
        },
      ];
      const events: unknown[] = [];
      const responses: unknown[] = [];
      for (const { handler, body } of scenarios.slice(0, 4)) {
        upstream.handle(handler);
        const plain = await postResponses(freeway.url, { model: 'free:tool-use', ...body }, keyHeaders('cerebras'));
        expect(plain.status, plain.text).to.equal(200);
        responses.push(plain.json);
      }
      for (const { handler, body } of scenarios) {
        upstream.handle(handler);
        const streamed = await postResponses(freeway.url, { model: 'free:tool-use', ...body, stream: true }, keyHeaders('cerebras'));
        expect(streamed.status).to.equal(200);
        events.push(...responseEvents(streamed.text));
      }
      expect(new Set(events.map((event) => (event as { type: string }).type)).size).to.be.greaterThan(14);
      expect(await checkAgainstSDKTypes(events, responses)).to.equal('');
    });

    it('the type check does catch a wrong event', async function () {
      this.timeout(30000);
      const wrong = [{ type: 'response.output_text.delta', sequence_number: 0, item_id: 'msg_1', output_index: 0, content_index: 0, delta: 'x' }];
      expect(await checkAgainstSDKTypes(wrong)).to.include('logprobs');
    });
  });

  describe('Gemini behind the Responses API', function () {
    let gemini: FakeUpstream;
    let viaGoogle: RunningFreeway;

    before(async function () {
      gemini = await startUpstream();
      viaGoogle = await startFreeway({ env: { GOOGLE_BASE_URL: gemini.url } });
    });

    after(async function () {
      await viaGoogle.close();
      await gemini.close();
    });

    /** streamGenerateContent?alt=sse with one whole functionCall part, as Gemini sends calls. */
    const functionCall = (_req: SeenRequest, res: import('node:http').ServerResponse): void => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.end(
        `data: ${JSON.stringify({
          candidates: [{ content: { role: 'model', parts: [{ functionCall: { name: 'get_weather', args: { city: 'Paris' } } }] }, finishReason: 'STOP', index: 0 }],
          usageMetadata: { promptTokenCount: 12, candidatesTokenCount: 5, totalTokenCount: 17 },
        })}\r\n\r\n`,
      );
    };

    it('a whole function call streams as added, one arguments delta, done', async function () {
      gemini.handle(functionCall);
      const stream = client(viaGoogle, keyHeaders('google')).responses.stream({ model: 'google/gemini-2.5-flash', input: 'Weather in Paris?', tools: [weatherTool] });
      const events: ResponseStreamEvent[] = [];
      for await (const event of stream) events.push(event);
      expect(events.map((event) => event.type)).to.deep.equal([
        'response.created',
        'response.in_progress',
        'response.output_item.added',
        'response.function_call_arguments.delta',
        'response.function_call_arguments.done',
        'response.output_item.done',
        'response.completed',
      ]);
      const final = await stream.finalResponse();
      const call = final.output[0];
      expect(call?.type === 'function_call' && [call.name, JSON.parse(call.arguments)]).to.deep.equal(['get_weather', { city: 'Paris' }]);
      expect(final.usage).to.deep.include({ input_tokens: 12, output_tokens: 5, total_tokens: 17 });
      expect(gemini.requests[0]?.path).to.match(/^\/models\/gemini-2\.5-flash:streamGenerateContent/);
    });

    it('a function_call_output goes to Gemini as a functionResponse named after its call', async function () {
      gemini.handle((_req, res) => {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.end(`data: ${JSON.stringify({ candidates: [{ content: { role: 'model', parts: [{ text: 'Sunny.' }] }, finishReason: 'STOP', index: 0 }] })}\r\n\r\n`);
      });
      const response = await client(viaGoogle, keyHeaders('google')).responses.create({
        model: 'google/gemini-2.5-flash',
        tools: [weatherTool],
        input: [
          { role: 'user', content: 'Weather in Paris?' },
          { type: 'function_call', call_id: 'call_9', name: 'get_weather', arguments: '{"city":"Paris"}' },
          { type: 'function_call_output', call_id: 'call_9', output: 'sunny' },
        ],
      });
      expect(response.output_text).to.equal('Sunny.');
      expect(response).not.to.have.property('usage');
      const contents = gemini.requests.at(-1)?.body?.contents as Array<{ role: string; parts: Array<Record<string, any>> }>;
      expect(contents.map((content) => content.role)).to.deep.equal(['user', 'model', 'user']);
      expect(contents[1]?.parts[0]?.functionCall).to.deep.include({ name: 'get_weather', args: { city: 'Paris' } });
      expect(contents[2]?.parts[0]?.functionResponse?.name).to.equal('get_weather');
    });
    it('a PDF as input_file reaches Gemini inline, and an alias picks a model that reads PDFs', async function () {
      gemini.handle((_req, res) => geminiSSE(res, 'A one-page invoice.'));
      const pdf = Buffer.from('%PDF-1.4 tiny').toString('base64');
      const response = await client(viaGoogle, keyHeaders('google')).responses.create({
        model: 'free:auto',
        input: [{ role: 'user', content: [{ type: 'input_text', text: 'What is this?' }, { type: 'input_file', filename: 'invoice.pdf', file_data: `data:application/pdf;base64,${pdf}` }] }],
      });
      expect(response.output_text).to.equal('A one-page invoice.');
      const parts = (gemini.requests.at(-1)?.body?.contents as Array<{ parts: Array<Record<string, any>> }>)[0]?.parts;
      expect(parts?.[0]).to.deep.equal({ text: 'What is this?' });
      expect(parts?.[1]?.inlineData).to.deep.equal({ mimeType: 'application/pdf', data: pdf });
    });

    it('a PDF with only keys of providers whose models read no PDFs is a 400 naming the ones that do', async function () {
      const error = await rejection(() =>
        client(viaGoogle, keyHeaders('cerebras')).responses.create({
          model: 'free:auto',
          input: [{ role: 'user', content: [{ type: 'input_file', filename: 'a.pdf', file_data: 'data:application/pdf;base64,JVBERi0x' }] }],
        }),
      );
      expect(error.status).to.equal(400);
      expect(error.message).to.match(/Your keys \(X-Cerebras-Key\) have no model for free:auto that reads PDFs; keys of .*X-Google-Key.* do\./);
    });
  });

  describe('a Codex-style agent request', function () {
    it('is served: developer instructions, earlier reasoning, calls and outputs, store false, fields Freeway ignores', async function () {
      upstream.handle((_req, res) => openAIToolCall(res, 'shell', '{"command":["ls"]}'));
      const shell: FunctionTool = {
        type: 'function',
        name: 'shell',
        description: 'Runs a shell command',
        strict: false,
        parameters: { type: 'object', properties: { command: { type: 'array', items: { type: 'string' } } }, required: ['command'] },
      };
      const reply = await postResponses(
        freeway.url,
        {
          model: 'free:tool-use',
          instructions: 'You are a coding agent.',
          input: [
            { type: 'message', role: 'developer', content: [{ type: 'input_text', text: '<permissions>workspace-write</permissions>' }] },
            { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'List the files' }] },
            { type: 'reasoning', id: 'rs_1', summary: [], content: null, encrypted_content: 'gAAAA...' },
            { type: 'function_call', id: 'fc_1', call_id: 'call_0', name: 'shell', arguments: '{"command":["pwd"]}' },
            { type: 'function_call_output', call_id: 'call_0', output: '/work' },
          ],
          tools: [shell],
          tool_choice: 'auto',
          parallel_tool_calls: false,
          reasoning: { effort: 'medium', summary: 'auto' },
          store: false,
          stream: true,
          include: ['reasoning.encrypted_content'],
          prompt_cache_key: '0199-session',
        },
        keyHeaders('cerebras'),
      );
      expect(reply.status, reply.text).to.equal(200);
      const events = responseEvents(reply.text);
      const done = events.find((event) => event.type === 'response.output_item.done');
      expect(done.item).to.deep.include({ type: 'function_call', name: 'shell', arguments: '{"command":["ls"]}' });
      expect(events.at(-1).type).to.equal('response.completed');
      expect(seen(upstream).body?.messages).to.deep.equal([
        { role: 'system', content: 'You are a coding agent.' },
        { role: 'system', content: '<permissions>workspace-write</permissions>' },
        { role: 'user', content: 'List the files' },
        { role: 'assistant', content: null, tool_calls: [{ id: 'call_0', type: 'function', function: { name: 'shell', arguments: '{"command":["pwd"]}' } }] },
        { role: 'tool', tool_call_id: 'call_0', content: '/work' },
      ]);
    });
  });

  describe('requests Freeway refuses (400 invalid_request_error, before any upstream call)', function () {
    const stateless = 'Freeway keeps no state; send the whole conversation in input instead';
    const cases: Array<[string, Record<string, unknown>, string]> = [
      ['no model', { input: 'Hi' }, 'Validation failed: model: is required'],
      ['no input', { model: 'free:auto' }, 'Validation failed: input: is required'],
      ['an empty input list', { model: 'free:auto', input: [] }, 'Validation failed: input: must NOT have fewer than 1 items'],
      ['input of the wrong type', { model: 'free:auto', input: 42 }, 'Validation failed: input: must be string or array'],
      ['previous_response_id', { model: 'free:auto', input: 'Hi', previous_response_id: 'resp_123' }, `Validation failed: previous_response_id: ${stateless}`],
      ['conversation', { model: 'free:auto', input: 'Hi', conversation: 'conv_123' }, `Validation failed: conversation: ${stateless}`],
      ['background', { model: 'free:auto', input: 'Hi', background: true }, 'Validation failed: background: Freeway keeps no state, so it cannot run a response in the background'],
      ['a stored prompt', { model: 'free:auto', prompt: { id: 'pmpt_1' } }, 'Validation failed: prompt: Freeway keeps no state, so it has no stored prompts; send instructions and input instead'],
      [
        'an item_reference',
        { model: 'free:auto', input: [{ role: 'user', content: 'Hi' }, { type: 'item_reference', id: 'msg_1' }] },
        `Validation failed: input.1: ${stateless} (with the AI SDK, set providerOptions.openai.store to false)`,
      ],
      ['a local_shell tool (run by the client, in a shape of its own)', { model: 'free:auto', input: 'Hi', tools: [{ type: 'local_shell' }] }, 'Validation failed: tools.0.type: local_shell tools are not supported; Freeway offers only function tools'],
      ['a custom (free-form) tool', { model: 'free:auto', input: 'Hi', tools: [{ type: 'custom', name: 'apply_patch' }] }, 'Validation failed: tools.0.type: custom tools are not supported; Freeway offers only function tools'],
      ['a function tool without a name', { model: 'free:auto', input: 'Hi', tools: [{ type: 'function', parameters: {} }] }, 'Validation failed: tools.0.name: is required'],
      ['a bad function name', { model: 'free:auto', input: 'Hi', tools: [{ type: 'function', name: 'get weather' }] }, 'Validation failed: tools.0.name: must be 1 to 64 letters, digits, underscores or dashes'],
      ['an image by file_id', { model: 'free:auto', input: [{ role: 'user', content: [{ type: 'input_image', file_id: 'file-1', detail: 'auto' }] }] }, 'Validation failed: input.0.content.0.file_id: Freeway keeps no state and has no uploaded files; send image_url as an http(s) or data URL'],
      ['an image that is not a URL', { model: 'free:auto', input: [{ role: 'user', content: [{ type: 'input_image', image_url: 'ftp://x/y.png', detail: 'auto' }] }] }, 'Validation failed: input.0.content.0.image_url: must be an http(s) URL or a data URL'],
      ['a file by file_id', { model: 'free:auto', input: [{ role: 'user', content: [{ type: 'input_file', file_id: 'file-1' }] }] }, 'Validation failed: input.0.content.0.file_id: Freeway keeps no files; send the document inline as file_data'],
      ['a file that is not a PDF', { model: 'free:auto', input: [{ role: 'user', content: [{ type: 'input_file', file_data: 'data:text/plain;base64,aGk=' }] }] }, 'Validation failed: input.0.content.0.file_data: only application/pdf documents are supported'],
      ['a file that is not a data URL', { model: 'free:auto', input: [{ role: 'user', content: [{ type: 'input_file', file_data: 'JVBERi0x' }] }] }, 'Validation failed: input.0.content.0.file_data: must be a base64 data URL (data:application/pdf;base64,...)'],
      ['an input_audio part', { model: 'free:auto', input: [{ role: 'user', content: [{ type: 'input_audio', input_audio: { data: 'x', format: 'wav' } }] }] }, 'Validation failed: input.0.content.0.type: input_audio parts are not supported; send text, images or PDFs'],
      ['an unknown role', { model: 'free:auto', input: [{ role: 'tool', content: 'x' }] }, 'Validation failed: input.0.role: must be one of user, assistant, system, developer'],
      ['a function_call without call_id', { model: 'free:auto', input: [{ type: 'function_call', name: 'f', arguments: '{}' }] }, 'Validation failed: input.0.call_id: is required'],
      ['a function_call_output with an image', { model: 'free:auto', input: [{ type: 'function_call_output', call_id: 'c', output: [{ type: 'input_image', image_url: 'https://x/y.png' }] }] }, 'Validation failed: input.0.output.0.type: only input_text parts are supported in tool outputs'],
      ['an unsupported item type', { model: 'free:auto', input: [{ type: 'computer_call_output', call_id: 'c' }] }, 'Validation failed: input.0.type: computer_call_output items are not supported; send message, function_call and function_call_output items'],
      ['temperature above 2', { model: 'free:auto', input: 'Hi', temperature: 3 }, 'Validation failed: temperature: must be <= 2'],
      ['top_p as a string', { model: 'free:auto', input: 'Hi', top_p: '1' }, 'Validation failed: top_p: must be number or null'],
      ['max_output_tokens of 0', { model: 'free:auto', input: 'Hi', max_output_tokens: 0 }, 'Validation failed: max_output_tokens: must be >= 1'],
      ['a hosted tool_choice', { model: 'free:auto', input: 'Hi', tool_choice: { type: 'file_search' } }, 'Validation failed: tool_choice.type: forces file_search, a hosted tool, which Freeway cannot run; force a function tool, or use auto, none or required'],
      ['an allowed_tools tool_choice', { model: 'free:auto', input: 'Hi', tool_choice: { type: 'allowed_tools', mode: 'auto', tools: [] } }, 'Validation failed: tool_choice.type: allowed_tools is not supported; use auto, none, required or {"type": "function", "name": ...}'],
      ['an unknown text format', { model: 'free:auto', input: 'Hi', text: { format: { type: 'xml' } } }, 'Validation failed: text.format.type: must be one of text, json_object, json_schema'],
      ['a json_schema format without schema', { model: 'free:auto', input: 'Hi', text: { format: { type: 'json_schema', name: 'x' } } }, 'Validation failed: text.format.schema: is required'],
      ['metadata with a number', { model: 'free:auto', input: 'Hi', metadata: { n: 1 } }, 'Validation failed: metadata.n: must be string'],
      ['an unknown reasoning effort', { model: 'free:auto', input: 'Hi', reasoning: { effort: 'extreme' } }, 'Validation failed: reasoning.effort: must be one of none, minimal, low, medium, high, xhigh, max'],
      ['stream as a string', { model: 'free:auto', input: 'Hi', stream: 'yes' }, 'Validation failed: stream: must be boolean or null'],
      ['a body that is a list', [] as unknown as Record<string, unknown>, 'Validation failed: body: must be object'],
    ];
    for (const [name, body, message] of cases) {
      it(name, async function () {
        const reply = await postResponses(freeway.url, body, keyHeaders('cerebras'));
        expect(reply.status, reply.text).to.equal(400);
        expect(reply.json).to.deep.equal({ error: { message, type: 'invalid_request_error', code: 400 } });
        expect(upstream.requests).to.have.length(0);
      });
    }

    it('store: true is served statelessly and echoed as store: false; unknown fields are ignored', async function () {
      const reply = await postResponses(freeway.url, { model: 'free:auto', input: 'Hi', store: true, include: ['reasoning.encrypted_content'], reasoning: { summary: 'auto' }, truncation: 'auto', frobnicate: 1 }, keyHeaders('cerebras'));
      expect(reply.status, reply.text).to.equal(200);
      expect(reply.json.store).to.equal(false);
      expect(reply.json.status).to.equal('completed');
    });

    it('the SDK surfaces a refusal as a BadRequestError', async function () {
      const error = await rejection(() => openai.responses.create({ model: 'free:auto', input: 'Hi', previous_response_id: 'resp_1' }));
      expect(error.status).to.equal(400);
      expect(error.type).to.equal('invalid_request_error');
      expect(error.message).to.equal(`400 Validation failed: previous_response_id: ${stateless}`);
    });

    it('a method other than POST is a 405 with Allow', async function () {
      const reply = await fetch(`${freeway.url}/v1/responses`, { method: 'GET' });
      expect(reply.status).to.equal(405);
      expect(reply.headers.get('allow')).to.equal('POST');
      expect(await reply.json()).to.deep.equal({ error: { message: 'Method GET is not allowed on /v1/responses. Allowed: POST.', type: 'invalid_request_error', code: 405 } });
    });

    it('a body that is not JSON is a 400', async function () {
      const reply = await fetch(`${freeway.url}/v1/responses`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"model":' });
      expect(reply.status).to.equal(400);
      const body = (await reply.json()) as { error: { type: string; message: string } };
      expect(body.error.type).to.equal('invalid_request_error');
      expect(body.error.message).to.match(/JSON/);
    });
  });

  describe('errors before the first byte', function () {
    it('an upstream 400 caused by the request is a 400 invalid_request_error in OpenAI shape', async function () {
      upstream.handle((_req, res) => openAIError(res, 400, 'Invalid schema for response_format'));
      const error = await rejection(() => openai.responses.create({ model: 'free:auto', input: 'Hi' }));
      expect(error.status).to.equal(400);
      expect(error.type).to.equal('invalid_request_error');
      expect(error.message).to.match(/Invalid schema for response_format/);
    });

    it('an unknown model is a 404', async function () {
      const error = await rejection(() => openai.responses.create({ model: 'groq/nope', input: 'Hi' }));
      expect(error.status).to.equal(404);
      expect(error.type).to.equal('invalid_request_error');
      expect(error.message).to.equal('404 Unknown model: groq/nope. GET /v1/models lists the models.');
    });

    it('no key for the alias is a 401 authentication_error', async function () {
      const error = await rejection(() => client(freeway, {}).responses.create({ model: 'free:auto', input: 'Hi' }));
      expect(error.status).to.equal(401);
      expect(error.type).to.equal('authentication_error');
      expect(error.message).to.match(/^401 No provider key for free:auto\. Send one of: /);
    });

    it('a pinned model whose provider fails is a 502 freeway_provider_error', async function () {
      upstream.handle((_req, res) => openAIError(res, 503, 'Service unavailable'));
      const error = await rejection(() => client(freeway, keyHeaders('groq')).responses.create({ model: 'groq/llama-3.3-70b-versatile', input: 'Hi' }));
      expect(error.status).to.equal(502);
      expect(error.type).to.equal('freeway_provider_error');
      expect(error.message).to.match(/^502 Provider failed: groq: 503/);
    });
  });
});
