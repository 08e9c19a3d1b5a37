/**
 * Anthropic's Messages API as its users' clients speak it: the official
 * `@anthropic-ai/sdk` and the AI SDK's `@ai-sdk/anthropic`, pointed at Freeway,
 * whose providers point at fake OpenAI-compatible upstreams on 127.0.0.1. Each
 * test checks what the client hands back and what the upstream was sent;
 * streams are checked event by event against the SDK's types.
 */
import type { ServerResponse } from 'node:http';
import { createAnthropic } from '@ai-sdk/anthropic';
import Anthropic from '@anthropic-ai/sdk';
import type { MessageParam, Tool } from '@anthropic-ai/sdk/resources/messages/messages';
import { generateText, streamText, tool } from 'ai';
import { expect } from 'chai';
import { z } from 'zod';
import { checkStream, messageSchema } from '../support/anthropic-events.ts';
import { startFreeway, type RunningFreeway } from '../support/freeway.ts';
import { readAnswer } from '../support/http.ts';
import { headerFor, keyHeaders, testKeys } from '../support/keys.ts';
import { freewayOverOneUpstream } from '../support/suite.ts';
import { geminiSSE, openAISSE, openAIText, openAIToolCall, startUpstream, usage, type FakeUpstream, type SeenRequest } from '../support/upstream.ts';
import { C1, CEREBRAS_FIRST, CEREBRAS_FIRST_TAKES_EFFORT, CEREBRAS_FIRST_WINDOW } from '../support/current-models.ts';

const weatherTool: Tool = {
  name: 'get_weather',
  description: 'Current weather for a city',
  input_schema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
};

const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=';

/** A raw POST, for tests that look at the bytes Freeway sends. */
async function post(url: string, path: string, body: unknown, headers: Record<string, string> = {}): Promise<{ status: number; headers: Headers; text: string; json: any }> {
  const res = await fetch(`${url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'anthropic-version': '2023-06-01', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  return readAnswer(res);
}

/** An upstream answer that reasons first (`reasoning_content`, as DeepSeek and Cerebras send it), then answers. */
function reasoningThenText(res: ServerResponse, reasoning: string[], text: string[]): void {
  openAISSE(res, [
    ...reasoning.map((piece) => ({ choices: [{ index: 0, delta: { reasoning_content: piece }, finish_reason: null }] })),
    ...text.map((piece) => ({ choices: [{ index: 0, delta: { content: piece }, finish_reason: null }] })),
    { choices: [{ index: 0, delta: {}, finish_reason: 'stop' }], usage: { ...usage, completion_tokens_details: { reasoning_tokens: 2 } } },
  ]);
}

/** Text, then two tool calls streamed one after the other, as OpenAI-compatible providers send parallel calls. */
function textAndTwoCalls(res: ServerResponse): void {
  const call = (index: number, id: string, name: string, args: string) => ({
    choices: [{ index: 0, delta: { tool_calls: [{ index, id, type: 'function', function: { name, arguments: args } }] }, finish_reason: null }],
  });
  const more = (index: number, args: string) => ({ choices: [{ index: 0, delta: { tool_calls: [{ index, function: { arguments: args } }] }, finish_reason: null }] });
  openAISSE(res, [
    { choices: [{ index: 0, delta: { role: 'assistant', content: 'Checking both.' }, finish_reason: null }] },
    call(0, 'call_a', 'get_weather', '{"city":'),
    more(0, '"Paris"}'),
    call(1, 'call_b', 'get_weather', '{"city":"Rome"'),
    more(1, '}'),
    { choices: [{ index: 0, delta: {}, finish_reason: 'tool_calls' }], usage },
  ]);
}

const lastUserContent = (req: SeenRequest | undefined): unknown => {
  const messages = req?.body?.messages as Array<{ role: string; content: unknown }> | undefined;
  return messages?.filter((message) => message.role === 'user').at(-1)?.content;
};

describe('Messages API (POST /v1/messages)', function () {
  let upstream: FakeUpstream;
  let freeway: RunningFreeway;
  let anthropic: Anthropic;

  const suite = freewayOverOneUpstream(['cerebras', 'openrouter', 'mistral']);
  before(function () {
    ({ upstream, freeway } = suite);
    // No retries: an error must reach the test once. The SDK's api key is a placeholder Freeway ignores.
    anthropic = new Anthropic({ baseURL: freeway.url, apiKey: 'sk-ant-placeholder', defaultHeaders: keyHeaders('cerebras'), maxRetries: 0, timeout: 5000 });
  });


  describe('@anthropic-ai/sdk messages.create', function () {
    it('answers a Claude model name with a message object echoing it, routed by ANTHROPIC_MODEL_MAP', async function () {
      const { data: message, response } = await anthropic.messages
        .create({
          model: 'claude-sonnet-4-6',
          max_tokens: 256,
          system: [{ type: 'text', text: 'Be brief.', cache_control: { type: 'ephemeral' } }],
          messages: [{ role: 'user', content: [{ type: 'text', text: 'Say hello', cache_control: { type: 'ephemeral' } }] }],
          // Sampling fields the Messages API documents, which this SDK's types no longer list.
          ...{ temperature: 0.5, top_p: 0.9, top_k: 40 },
          stop_sequences: ['END'],
        } as Anthropic.MessageCreateParamsNonStreaming)
        .withResponse();

      expect(messageSchema.safeParse(message).success, JSON.stringify(message)).to.equal(true);
      expect(message.id).to.match(/^msg_/);
      expect(message.type).to.equal('message');
      expect(message.role).to.equal('assistant');
      expect(message.model).to.equal('claude-sonnet-4-6');
      expect(message.content).to.deep.equal([{ type: 'text', text: 'Hello there friend', citations: null }]);
      expect(message.stop_reason).to.equal('end_turn');
      expect(message.stop_sequence).to.equal(null);
      expect(message.usage.input_tokens).to.equal(usage.prompt_tokens);
      expect(message.usage.output_tokens).to.equal(usage.completion_tokens);
      // The upstream reported no cache use and no reasoning: nothing is invented.
      expect(message.usage.cache_read_input_tokens).to.equal(null);
      expect(message.usage.cache_creation_input_tokens).to.equal(null);
      expect(message.usage.output_tokens_details).to.equal(null);

      // claude-* -> free:tool-use; with only a Cerebras key, its first tool-use model.
      expect(response.headers.get('x-freeway-provider')).to.equal('cerebras');
      expect(response.headers.get('x-freeway-model')).to.equal(`cerebras/${CEREBRAS_FIRST}`);
      expect(response.headers.get('x-freeway-attempts')).to.match(new RegExp(`^cerebras\\/${C1} 200 \\d+ms$`));

      expect(upstream.requests).to.have.length(1);
      const seen = upstream.requests[0] as SeenRequest;
      expect(seen.path).to.equal('/chat/completions');
      expect(seen.body).to.include({ model: CEREBRAS_FIRST, max_tokens: 256, temperature: 0.5, top_p: 0.9, stream: true });
      expect(seen.body?.stop).to.deep.equal(['END']);
      expect(seen.body?.messages).to.deep.equal([
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'Say hello' },
      ]);
      // The caller's provider key goes upstream; the SDK's x-api-key and anthropic-* headers do not.
      expect(seen.headers.authorization).to.equal(`Bearer ${testKeys.cerebras}`);
      expect(JSON.stringify(seen.headers)).not.to.include('sk-ant-placeholder');
      expect(seen.headers['anthropic-version']).to.equal(undefined);
    });

    it('maps *haiku* to free:fast, takes catalog ids and aliases as they are, and passes metadata.user_id as user', async function () {
      const haiku = await anthropic.messages.create({ model: 'claude-haiku-4-5', max_tokens: 10, messages: [{ role: 'user', content: 'Hi' }] });
      expect(haiku.model).to.equal('claude-haiku-4-5');
      const pinned = await anthropic.messages.create(
        { model: 'mistral/mistral-small-latest', max_tokens: 10, messages: [{ role: 'user', content: 'Hi' }], metadata: { user_id: 'user-42' } },
        { headers: keyHeaders('mistral') },
      );
      expect(pinned.model).to.equal('mistral/mistral-small-latest');
      const alias = await anthropic.messages.create({ model: 'free:auto', max_tokens: 10, messages: [{ role: 'user', content: 'Hi' }] });
      expect(alias.model).to.equal('free:auto');
      expect(upstream.requests.map((req) => req.body?.model)).to.deep.equal([CEREBRAS_FIRST, 'mistral-small-latest', CEREBRAS_FIRST]);
      expect(upstream.requests[1]?.body?.user).to.equal('user-42');
      expect(upstream.requests[1]?.headers.authorization).to.equal(`Bearer ${testKeys.mistral}`);
    });

    it('counts cached input apart from input_tokens, as Anthropic does, when the provider reports it', async function () {
      upstream.handle((_req, res) =>
        openAISSE(res, [
          { choices: [{ index: 0, delta: { content: 'ok' }, finish_reason: null }] },
          { choices: [{ index: 0, delta: {}, finish_reason: 'stop' }], usage: { prompt_tokens: 120, completion_tokens: 4, total_tokens: 124, prompt_tokens_details: { cached_tokens: 100 } } },
        ]),
      );
      const message = await anthropic.messages.create({ model: 'claude-sonnet-4-6', max_tokens: 10, messages: [{ role: 'user', content: 'Hi' }] });
      expect(message.usage).to.include({ input_tokens: 20, cache_read_input_tokens: 100, cache_creation_input_tokens: null, output_tokens: 4 });
    });

    it('reports 0 input and output tokens when the upstream reported no usage', async function () {
      upstream.handle((_req, res) =>
        openAISSE(res, [
          { choices: [{ index: 0, delta: { content: 'ok' }, finish_reason: null }] },
          { choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] },
        ]),
      );
      const message = await anthropic.messages.create({ model: 'claude-sonnet-4-6', max_tokens: 10, messages: [{ role: 'user', content: 'Hi' }] });
      expect(message.usage).to.include({ input_tokens: 0, output_tokens: 0, cache_read_input_tokens: null, output_tokens_details: null });
    });

    it('joins system and the system messages of the conversation into one leading system message', async function () {
      await anthropic.messages.create({
        model: 'claude-sonnet-4-6',
        max_tokens: 10,
        system: 'You are a coding agent.',
        messages: [
          { role: 'user', content: 'Fix the bug' },
          // Claude Code sends its environment like this, after the first user turn.
          { role: 'system', content: [{ type: 'text', text: '# Environment\nPlatform: linux' }] },
        ],
      });
      expect(upstream.requests[0]?.body?.messages).to.deep.equal([
        { role: 'system', content: 'You are a coding agent.\n\n# Environment\nPlatform: linux' },
        { role: 'user', content: 'Fix the bug' },
      ]);
    });

    it('reports max_tokens when the upstream stopped for length', async function () {
      upstream.handle((_req, res) =>
        openAISSE(res, [
          { choices: [{ index: 0, delta: { content: 'cut' }, finish_reason: null }] },
          { choices: [{ index: 0, delta: {}, finish_reason: 'length' }], usage },
        ]),
      );
      const message = await anthropic.messages.create({ model: 'claude-sonnet-4-6', max_tokens: 1, messages: [{ role: 'user', content: 'Hi' }] });
      expect(message.stop_reason).to.equal('max_tokens');
      expect(message.content).to.deep.equal([{ type: 'text', text: 'cut', citations: null }]);
    });

    it('returns the upstream reasoning as a thinking block with an empty signature, before the text', async function () {
      upstream.handle((_req, res) => reasoningThenText(res, ['Let me ', 'think.'], ['42']));
      const message = await anthropic.messages.create({
        model: 'claude-sonnet-4-6',
        max_tokens: 2048,
        thinking: { type: 'enabled', budget_tokens: 1024 },
        messages: [{ role: 'user', content: 'Answer?' }],
      });
      expect(messageSchema.safeParse(message).success).to.equal(true);
      expect(message.content).to.deep.equal([
        { type: 'thinking', thinking: 'Let me think.', signature: '' },
        { type: 'text', text: '42', citations: null },
      ]);
      expect(message.usage.output_tokens_details).to.deep.equal({ thinking_tokens: 2 });
      // A reasoning effort goes only to a model that takes one.
      if (CEREBRAS_FIRST_TAKES_EFFORT) expect(upstream.requests[0]?.body).to.have.property('reasoning_effort');
      else expect(upstream.requests[0]?.body).to.not.have.property('reasoning_effort');
    });

    it('leaves the thinking out when the caller asks for display: omitted, as Claude Code does', async function () {
      upstream.handle((_req, res) => reasoningThenText(res, ['Private ', 'reasoning.'], ['42']));
      const request = {
        model: 'claude-sonnet-4-6',
        max_tokens: 2048,
        thinking: { type: 'adaptive', display: 'omitted' },
        messages: [{ role: 'user', content: 'Answer?' }],
      } as Anthropic.MessageCreateParamsNonStreaming;
      const message = await anthropic.messages.create(request);
      expect(message.content).to.deep.equal([{ type: 'text', text: '42', citations: null }]);
      const res = await post(freeway.url, '/v1/messages', { ...request, stream: true }, keyHeaders('cerebras'));
      const events = checkStream(res.text);
      expect(events.filter((e) => e.event === 'content_block_start').map((e) => e.data.content_block.type)).to.deep.equal(['text']);
      expect(res.text).not.to.include('Private');
    });

    it('passes thinking as a reasoning effort to a model that takes one, by budget', async function () {
      for (const [budget, effort] of [
        [1024, 'low'],
        [8000, 'medium'],
        [31999, 'high'],
      ] as const) {
        await anthropic.messages.create({
          model: 'cerebras/gpt-oss-120b',
          max_tokens: 32000,
          thinking: { type: 'enabled', budget_tokens: budget },
          messages: [{ role: 'user', content: 'Answer?' }],
        });
        expect(upstream.requests.at(-1)?.body?.reasoning_effort, String(budget)).to.equal(effort);
      }
      await anthropic.messages.create({ model: 'cerebras/gpt-oss-120b', max_tokens: 100, thinking: { type: 'disabled' }, messages: [{ role: 'user', content: 'Hi' }] });
      expect(upstream.requests.at(-1)?.body).to.not.have.property('reasoning_effort');
    });

    it('takes text documents, and drops thinking blocks sent back in assistant turns', async function () {
      await anthropic.messages.create({
        model: 'claude-sonnet-4-6',
        max_tokens: 100,
        messages: [
          { role: 'user', content: 'First' },
          {
            role: 'assistant',
            content: [
              { type: 'thinking', thinking: 'private', signature: '' },
              { type: 'text', text: 'Reply' },
            ],
          },
          {
            role: 'user',
            content: [
              { type: 'document', title: 'Notes', source: { type: 'text', media_type: 'text/plain', data: 'The sky is green.' } },
              { type: 'text', text: 'What colour is the sky?' },
            ],
          },
        ],
      });
      expect(upstream.requests[0]?.body?.messages).to.deep.equal([
        { role: 'user', content: 'First' },
        { role: 'assistant', content: 'Reply' },
        {
          role: 'user',
          content: [
            { type: 'text', text: 'Notes' },
            { type: 'text', text: 'The sky is green.' },
            { type: 'text', text: 'What colour is the sky?' },
          ],
        },
      ]);
    });
  });

  describe('tools', function () {
    it('a tool_use / tool_result round trip: the call comes back as tool_use, the result goes upstream as a tool message', async function () {
      upstream.handle((_req, res) => openAIToolCall(res, 'get_weather', '{"city":"Paris"}'));
      const messages: MessageParam[] = [{ role: 'user', content: 'Weather in Paris?' }];
      const first = await anthropic.messages.create({ model: 'claude-sonnet-4-6', max_tokens: 100, tools: [weatherTool], messages });
      expect(messageSchema.safeParse(first).success).to.equal(true);
      expect(first.stop_reason).to.equal('tool_use');
      expect(first.content).to.have.length(1);
      const call = first.content[0];
      if (call?.type !== 'tool_use') throw new Error('expected a tool_use block');
      expect(call.id).to.equal('toolu_call_1');
      expect(call.name).to.equal('get_weather');
      expect(call.input).to.deep.equal({ city: 'Paris' });

      const sent = upstream.requests[0]?.body;
      expect(sent?.tools).to.deep.equal([
        { type: 'function', function: { name: 'get_weather', description: 'Current weather for a city', parameters: weatherTool.input_schema } },
      ]);

      upstream.handle((req, res) => openAIText(res, 'It is sunny in Paris.', req));
      messages.push({ role: 'assistant', content: first.content });
      messages.push({
        role: 'user',
        content: [
          { type: 'tool_result', tool_use_id: call.id, content: [{ type: 'text', text: '{"temp":21}' }] },
          { type: 'text', text: 'Thanks' },
        ],
      });
      const second = await anthropic.messages.create({ model: 'claude-sonnet-4-6', max_tokens: 100, tools: [weatherTool], messages });
      expect(second.content).to.deep.equal([{ type: 'text', text: 'It is sunny in Paris.', citations: null }]);
      expect(second.stop_reason).to.equal('end_turn');
      // The upstream sees its own call id again, without the toolu_ prefix.
      expect(upstream.requests[1]?.body?.messages).to.deep.equal([
        { role: 'user', content: 'Weather in Paris?' },
        { role: 'assistant', content: null, tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } }] },
        { role: 'tool', tool_call_id: 'call_1', content: '{"temp":21}' },
        { role: 'user', content: 'Thanks' },
      ]);
    });

    it('string tool results, is_error and images in tool results (moved into a user message)', async function () {
      await anthropic.messages.create({
        model: 'free:vision',
        max_tokens: 100,
        tools: [weatherTool],
        messages: [
          { role: 'user', content: 'Go' },
          { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_01A', name: 'get_weather', input: { city: 'Oslo' } }] },
          {
            role: 'user',
            content: [
              { type: 'tool_result', tool_use_id: 'toolu_01A', content: 'city not found', is_error: true },
            ],
          },
          { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_01B', name: 'get_weather', input: { city: 'Bergen' } }] },
          {
            role: 'user',
            content: [
              { type: 'tool_result', tool_use_id: 'toolu_01B', content: [{ type: 'text', text: 'radar:' }, { type: 'image', source: { type: 'base64', media_type: 'image/png', data: PNG } }] },
            ],
          },
        ],
      }, { headers: keyHeaders('openrouter') });
      const sent = upstream.requests[0]?.body?.messages as Array<Record<string, unknown>>;
      expect(sent[2]).to.deep.equal({ role: 'tool', tool_call_id: '01A', content: 'city not found' });
      expect(sent[4]).to.deep.equal({ role: 'tool', tool_call_id: '01B', content: 'radar:' });
      expect(sent[5]).to.deep.equal({ role: 'user', content: [{ type: 'image_url', image_url: { url: `data:image/png;base64,${PNG}` } }] });
    });

    it('tool_choice any, tool and none map to required, the named function and none', async function () {
      const cases = [
        [{ type: 'any' }, 'required'],
        [{ type: 'tool', name: 'get_weather' }, { type: 'function', function: { name: 'get_weather' } }],
        [{ type: 'none' }, 'none'],
        [{ type: 'auto', disable_parallel_tool_use: true }, 'auto'],
      ] as const;

      for (const [choice, expected] of cases) {
        await anthropic.messages.create({ model: 'claude-sonnet-4-6', max_tokens: 10, tools: [weatherTool], tool_choice: choice, messages: [{ role: 'user', content: 'Hi' }] });
        expect(upstream.requests.at(-1)?.body?.tool_choice, choice.type).to.deep.equal(expected);
      }
      // disable_parallel_tool_use asks for at most one call; without it nothing is said.
      expect(upstream.requests.map((req) => req.body?.parallel_tool_calls)).to.deep.equal([undefined, undefined, undefined, false]);
    });

    it('streams text then two calls as three blocks, each call with its input_json_delta pieces', async function () {
      upstream.handle((_req, res) => textAndTwoCalls(res));
      const res = await post(freeway.url, '/v1/messages', { model: 'claude-sonnet-4-6', max_tokens: 100, stream: true, tools: [weatherTool], messages: [{ role: 'user', content: 'Weather?' }] }, keyHeaders('cerebras'));
      expect(res.status).to.equal(200);
      const events = checkStream(res.text);
      const starts = events.filter((e) => e.event === 'content_block_start').map((e) => e.data.content_block);
      expect(starts).to.deep.equal([
        { type: 'text', text: '', citations: null },
        { type: 'tool_use', id: 'toolu_call_a', name: 'get_weather', input: {}, caller: { type: 'direct' } },
        { type: 'tool_use', id: 'toolu_call_b', name: 'get_weather', input: {}, caller: { type: 'direct' } },
      ]);
      const json = (index: number): string =>
        events
          .filter((e) => e.event === 'content_block_delta' && e.data.index === index)
          .map((e) => e.data.delta.partial_json)
          .join('');
      expect(JSON.parse(json(1))).to.deep.equal({ city: 'Paris' });
      expect(JSON.parse(json(2))).to.deep.equal({ city: 'Rome' });
      expect(events.find((e) => e.event === 'message_delta')?.data.delta.stop_reason).to.equal('tool_use');

      const stream = anthropic.messages.stream({ model: 'claude-sonnet-4-6', max_tokens: 100, tools: [weatherTool], messages: [{ role: 'user', content: 'Weather?' }] });
      const final = await stream.finalMessage();
      expect(final.content.map((block) => (block.type === 'tool_use' ? block.input : block.type === 'text' ? block.text : null))).to.deep.equal([
        'Checking both.',
        { city: 'Paris' },
        { city: 'Rome' },
      ]);
    });
  });

  describe('images', function () {
    it('base64 and url images go upstream as image_url parts, to a vision model only', async function () {
      await anthropic.messages.create(
        {
          model: 'free:auto',
          max_tokens: 50,
          messages: [
            {
              role: 'user',
              content: [
                { type: 'image', source: { type: 'base64', media_type: 'image/png', data: PNG } },
                { type: 'image', source: { type: 'url', url: 'https://example.test/cat.jpg' } },
                { type: 'text', text: 'Compare them' },
              ],
            },
          ],
        },
        { headers: keyHeaders('openrouter') },
      );
      const seen = upstream.requests[0];
      // free:auto with images narrows to vision models: OpenRouter's Gemma.
      expect(seen?.body?.model).to.equal('google/gemma-4-31b-it:free');
      expect(lastUserContent(seen)).to.deep.equal([
        { type: 'image_url', image_url: { url: `data:image/png;base64,${PNG}` } },
        { type: 'image_url', image_url: { url: 'https://example.test/cat.jpg' } },
        { type: 'text', text: 'Compare them' },
      ]);
    });

    it('an image with only non-vision keys is a 400 naming the capability', async function () {
      const error = await anthropic.messages
        .create({ model: 'claude-sonnet-4-6', max_tokens: 50, messages: [{ role: 'user', content: [{ type: 'image', source: { type: 'url', url: 'https://example.test/a.png' } }] }] })
        .then(() => undefined, (caught: unknown) => caught);
      expect(error).to.be.instanceOf(Anthropic.BadRequestError);
      const body = (error as InstanceType<typeof Anthropic.BadRequestError>).error as any;
      expect(body.error.type).to.equal('invalid_request_error');
      expect(body.error.message).to.match(/^Your keys \(X-Cerebras-Key\) have no model for claude-sonnet-4-6 \(mapped to free:tool-use\) that calls tools and takes images; keys of .+ do\.$/);
      expect(upstream.requests).to.have.length(0);
    });
  });

  describe('PDF documents', function () {
    const pdf = 'JVBERi0xLjQKJcOkw7zDtsOfCjIgMCBvYmoKPDwvTGVuZ3RoIDMgMCBSPj4Kc3RyZWFtCg==';

    it('go to a model that reads PDFs (Gemini), as inline data', async function () {
      const google = await startUpstream((_req, res) => geminiSSE(res, 'A one-page report.'));
      const fw = await startFreeway({ env: { GOOGLE_BASE_URL: google.url, CEREBRAS_BASE_URL: upstream.url } });
      try {
        const client = new Anthropic({ baseURL: fw.url, apiKey: 'x', defaultHeaders: keyHeaders('cerebras', 'google'), maxRetries: 0 });
        const message = await client.messages.create({
          model: 'claude-haiku-4-5',
          max_tokens: 100,
          messages: [{ role: 'user', content: [{ type: 'document', source: { type: 'base64', media_type: 'application/pdf', data: pdf } }, { type: 'text', text: 'Summarize' }] }],
        });
        expect(message.content).to.deep.equal([{ type: 'text', text: 'A one-page report.', citations: null }]);
        expect(message.model).to.equal('claude-haiku-4-5');
        // free:fast narrowed to models that read PDFs: Cerebras has none, so Gemini answers.
        expect(upstream.requests).to.have.length(0);
        expect(google.requests).to.have.length(1);
        const reader = fw.catalog.providers
          .find((provider) => provider.id === 'google')
          ?.models.find((model) => !model.deprecated && model.capabilities.includes('fast') && model.capabilities.includes('pdf'));
        expect(reader, 'a fast Gemini model that reads PDFs').to.not.equal(undefined);
        expect(google.requests[0]?.path).to.equal(`/models/${reader?.id}:streamGenerateContent?alt=sse`);
        const contents = google.requests[0]?.body?.contents as Array<{ role: string; parts: unknown[] }>;
        expect(contents[0]?.parts).to.deep.equal([{ inlineData: { mimeType: 'application/pdf', data: pdf } }, { text: 'Summarize' }]);
      } finally {
        await fw.close();
        await google.close();
      }
    });

    it('without a key for such a model, a 400 names the pdf capability and whose keys would do', async function () {
      const error = await anthropic.messages
        .create({ model: 'claude-sonnet-4-6', max_tokens: 50, messages: [{ role: 'user', content: [{ type: 'document', source: { type: 'url', url: 'https://example.test/report.pdf' } }] }] })
        .then(() => undefined, (caught: unknown) => caught);
      expect(error).to.be.instanceOf(Anthropic.BadRequestError);
      expect(((error as InstanceType<typeof Anthropic.BadRequestError>).error as any).error.message).to.equal(
        'Your keys (X-Cerebras-Key) have no model for claude-sonnet-4-6 (mapped to free:tool-use) that calls tools and reads PDFs; keys of X-Google-Key do.',
      );
    });
  });

  describe('streaming', function () {
    it('sends the documented events, each as event: + data:, starting with message_start and a ping', async function () {
      const res = await post(freeway.url, '/v1/messages', { model: 'claude-sonnet-4-6', max_tokens: 100, stream: true, messages: [{ role: 'user', content: 'Hi' }] }, keyHeaders('cerebras'));
      expect(res.status).to.equal(200);
      expect(res.headers.get('content-type')).to.match(/^text\/event-stream/);
      expect(res.headers.get('x-freeway-model')).to.equal(`cerebras/${CEREBRAS_FIRST}`);
      const events = checkStream(res.text);
      expect(events.map((e) => e.event)).to.deep.equal([
        'message_start',
        'ping',
        'content_block_start',
        'content_block_delta',
        'content_block_delta',
        'content_block_delta',
        'content_block_stop',
        'message_delta',
        'message_stop',
      ]);
      expect(events[0]?.data.message.model).to.equal('claude-sonnet-4-6');
      const text = events.filter((e) => e.event === 'content_block_delta').map((e) => e.data.delta.text).join('');
      expect(text).to.equal('Hello there friend');
      const delta = events.find((e) => e.event === 'message_delta')?.data;
      expect(delta.delta.stop_reason).to.equal('end_turn');
      expect(delta.usage).to.include({ input_tokens: 7, output_tokens: 3 });
    });

    it('messages.stream() with finalMessage() and text events', async function () {
      const stream = anthropic.messages.stream({ model: 'claude-sonnet-4-6', max_tokens: 100, messages: [{ role: 'user', content: 'Hi' }] });
      const pieces: string[] = [];
      stream.on('text', (delta) => pieces.push(delta));
      const final = await stream.finalMessage();
      // The SDK adds parsed_output to what it hands back; the rest is the message as sent.
      const { parsed_output: _parsed, ...sent } = final;
      expect(messageSchema.safeParse(sent).success).to.equal(true);
      expect(pieces.join('')).to.equal('Hello there friend');
      expect(final.model).to.equal('claude-sonnet-4-6');
      expect(final.content).to.deep.equal([{ type: 'text', text: 'Hello there friend', citations: null }]);
      expect(final.stop_reason).to.equal('end_turn');
      expect(final.usage.input_tokens).to.equal(7);
      expect(final.usage.output_tokens).to.equal(3);
      expect(upstream.requests[0]?.body?.stream).to.equal(true);
    });

    it('streams thinking as thinking_delta then signature_delta, in its own block before the text', async function () {
      upstream.handle((_req, res) => reasoningThenText(res, ['Hmm, ', 'yes.'], ['Done']));
      const res = await post(freeway.url, '/v1/messages', { model: 'claude-sonnet-4-6', max_tokens: 2048, stream: true, thinking: { type: 'enabled', budget_tokens: 1024 }, messages: [{ role: 'user', content: 'Hi' }] }, keyHeaders('cerebras'));
      const events = checkStream(res.text);
      const blocks = events.filter((e) => e.event.startsWith('content_block')).map((e) => [e.event, e.data.index, e.data.content_block?.type ?? e.data.delta?.type ?? '']);
      expect(blocks).to.deep.equal([
        ['content_block_start', 0, 'thinking'],
        ['content_block_delta', 0, 'thinking_delta'],
        ['content_block_delta', 0, 'thinking_delta'],
        ['content_block_delta', 0, 'signature_delta'],
        ['content_block_stop', 0, ''],
        ['content_block_start', 1, 'text'],
        ['content_block_delta', 1, 'text_delta'],
        ['content_block_stop', 1, ''],
      ]);
      const stream = anthropic.messages.stream({ model: 'claude-sonnet-4-6', max_tokens: 2048, thinking: { type: 'enabled', budget_tokens: 1024 }, messages: [{ role: 'user', content: 'Hi' }] });
      const final = await stream.finalMessage();
      expect(final.content).to.deep.equal([
        { type: 'thinking', thinking: 'Hmm, yes.', signature: '' },
        { type: 'text', text: 'Done', citations: null },
      ]);
      expect(final.usage.output_tokens_details).to.deep.equal({ thinking_tokens: 2 });
    });

    it('a provider that sends whole tool calls (Gemini) gives one tool_use block with the whole input', async function () {
      const google = await startUpstream((_req, res) => {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.end(
          `data: ${JSON.stringify({
            candidates: [{ content: { role: 'model', parts: [{ functionCall: { name: 'get_weather', args: { city: 'Lima' } } }] }, finishReason: 'STOP', index: 0 }],
            usageMetadata: { promptTokenCount: 11, candidatesTokenCount: 5, totalTokenCount: 16 },
          })}\r\n\r\n`,
        );
      });
      const fw = await startFreeway({ env: { GOOGLE_BASE_URL: google.url } });
      try {
        const res = await post(fw.url, '/v1/messages', { model: 'google/gemini-2.5-flash', max_tokens: 100, stream: true, tools: [weatherTool], messages: [{ role: 'user', content: 'Lima?' }] }, keyHeaders('google'));
        const events = checkStream(res.text);
        const start = events.find((e) => e.event === 'content_block_start')?.data.content_block;
        expect(start).to.include({ type: 'tool_use', name: 'get_weather' });
        expect(start.id).to.match(/^toolu_/);
        const deltas = events.filter((e) => e.event === 'content_block_delta');
        expect(deltas).to.have.length(1);
        expect(JSON.parse(deltas[0]?.data.delta.partial_json)).to.deep.equal({ city: 'Lima' });
        const delta = events.find((e) => e.event === 'message_delta')?.data;
        expect(delta.delta.stop_reason).to.equal('tool_use');
        expect(delta.usage).to.include({ input_tokens: 11, output_tokens: 5 });
      } finally {
        await fw.close();
        await google.close();
      }
    });
  });

  describe('count_tokens', function () {
    it('estimates characters / 4 over system, messages and tools, plus 1,600 per image, without calling any provider', async function () {
      const system = 'You are terse.'; // 14
      const text = 'How many tokens is this?'; // 24
      const { input_tokens } = await anthropic.messages.countTokens({
        model: 'claude-sonnet-4-6',
        system,
        tools: [weatherTool],
        messages: [
          { role: 'user', content: [{ type: 'text', text }, { type: 'image', source: { type: 'base64', media_type: 'image/png', data: PNG } }] },
          { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_1', name: 'get_weather', input: { city: 'Oslo' } }] },
          { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: 'sunny' }] },
        ],
      });
      const chars =
        system.length +
        text.length +
        'get_weather'.length +
        JSON.stringify({ city: 'Oslo' }).length +
        'sunny'.length +
        weatherTool.name.length +
        (weatherTool.description ?? '').length +
        JSON.stringify(weatherTool.input_schema).length;
      expect(input_tokens).to.equal(Math.ceil(chars / 4) + 1600);
      expect(upstream.requests).to.have.length(0);
    });

    it('needs no provider key, and refuses a model it cannot resolve with not_found_error', async function () {
      const bare = new Anthropic({ baseURL: freeway.url, apiKey: 'x', maxRetries: 0 });
      expect(await bare.messages.countTokens({ model: 'free:auto', messages: [{ role: 'user', content: 'abcdefgh' }] })).to.deep.equal({ input_tokens: 2 });
      const withPdf = await bare.messages.countTokens({
        model: 'free:auto',
        messages: [{ role: 'user', content: [{ type: 'document', source: { type: 'url', url: 'https://example.test/a.pdf' } }, { type: 'text', text: 'abcd' }] }],
      });
      expect(withPdf).to.deep.equal({ input_tokens: 1 + 1600 });
      const error = await bare.messages.countTokens({ model: 'gpt-4o', messages: [{ role: 'user', content: 'x' }] }).then(() => undefined, (caught: unknown) => caught);
      expect(error).to.be.instanceOf(Anthropic.NotFoundError);
      const body = (error as InstanceType<typeof Anthropic.NotFoundError>).error as { request_id: unknown };
      // request_id is the X-Request-Id Freeway gave the request.
      expect(body.request_id).to.be.a('string').and.match(/^[0-9a-f-]{36}$/);
      expect(body).to.deep.equal({
        type: 'error',
        error: {
          type: 'not_found_error',
          message: 'Unknown model: gpt-4o. Freeway serves no OpenAI model by its name: send an alias such as `free:auto` or a model GET /v1/models lists, or map the name on this Freeway with MODEL_MAP (MODEL_MAP=gpt-4o=free:auto).',
        },
        request_id: body.request_id,
      });
    });
  });

  describe('models', function () {
    it('models.list pages through every alias and model in Anthropic shape; models.retrieve returns one', async function () {
      const seen: string[] = [];
      // Without key headers: the whole curated catalog (with them, what those keys can use: test/routing/live-models.test.ts).
      const keyless = { headers: { [headerFor('cerebras')]: null } };
      for await (const model of anthropic.models.list({ limit: 7 }, keyless)) {
        expect(Object.keys(model).sort()).to.deep.equal(
          ['capabilities', 'created_at', 'deprecated_at', 'display_name', 'id', 'lifecycle', 'line', 'max_input_tokens', 'max_tokens', 'retires_at', 'type'],
        );
        expect(model.type).to.equal('model');
        expect(model.created_at).to.match(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
        seen.push(model.id);
      }
      expect(seen).to.deep.equal([...freeway.catalog.aliases.map((alias) => alias.id), ...freeway.catalog.models.map((model) => model.id)]);

      const first = await anthropic.models.list({}, keyless);
      expect(first.data).to.have.length(20);
      expect(first.has_more).to.equal(true);
      expect(first.first_id).to.equal('free:auto');
      expect(first.last_id).to.equal(first.data.at(-1)?.id);

      const one = await anthropic.models.retrieve(`cerebras/${CEREBRAS_FIRST}`);
      expect(one).to.include({ type: 'model', id: `cerebras/${CEREBRAS_FIRST}`, display_name: `Cerebras ${CEREBRAS_FIRST}`, max_input_tokens: CEREBRAS_FIRST_WINDOW, lifecycle: 'active' });
    });

    it('without anthropic-version, GET /v1/models is still the OpenAI list', async function () {
      const body = (await (await fetch(`${freeway.url}/v1/models`)).json()) as { object: string; data: Array<Record<string, unknown>> };
      expect(body.object).to.equal('list');
      expect(body.data[0]).to.include({ id: 'free:auto', object: 'model' });
    });
  });

  describe('@ai-sdk/anthropic pointed at Freeway', function () {
    const provider = () => createAnthropic({ baseURL: `${freeway.url}/v1`, apiKey: 'placeholder', headers: keyHeaders('cerebras') });

    it('generateText', async function () {
      const result = await generateText({ model: provider()('claude-sonnet-4-6'), prompt: 'Say hello', maxOutputTokens: 64 });
      expect(result.text).to.equal('Hello there friend');
      expect(result.finishReason).to.equal('stop');
      expect(result.usage.inputTokens).to.equal(7);
      expect(result.usage.outputTokens).to.equal(3);
      expect(upstream.requests[0]?.body?.max_tokens).to.equal(64);
      expect(upstream.requests[0]?.body?.messages).to.deep.equal([{ role: 'user', content: 'Say hello' }]);
    });

    it('streamText', async function () {
      const result = streamText({ model: provider()('claude-haiku-4-5'), prompt: 'Say hello' });
      let text = '';
      for await (const delta of result.textStream) text += delta;
      expect(text).to.equal('Hello there friend');
      expect(await result.finishReason).to.equal('stop');
    });

    it('streamText with thinking: the reasoning arrives as reasoning, the answer as text', async function () {
      upstream.handle((_req, res) => reasoningThenText(res, ['Let me ', 'see.'], ['Blue.']));
      const result = streamText({
        model: provider()('claude-sonnet-4-6'),
        prompt: 'Sky colour?',
        providerOptions: { anthropic: { thinking: { type: 'enabled', budgetTokens: 1024 } } },
      });
      let text = '';
      for await (const delta of result.textStream) text += delta;
      expect(text).to.equal('Blue.');
      expect(await result.reasoningText).to.equal('Let me see.');
      expect(upstream.requests[0]?.body?.messages).to.deep.equal([{ role: 'user', content: 'Sky colour?' }]);
    });

    it('a tool call with a zod schema, executed by the AI SDK', async function () {
      upstream.handle((_req, res) => openAIToolCall(res, 'get_weather', '{"city":"Paris"}'));
      const calls: string[] = [];
      const result = await generateText({
        model: provider()('claude-sonnet-4-6'),
        prompt: 'Weather in Paris?',
        tools: {
          get_weather: tool({
            description: 'Current weather for a city',
            inputSchema: z.object({ city: z.string() }),
            execute: async ({ city }) => {
              calls.push(city);
              return { temp: 21 };
            },
          }),
        },
      });
      expect(calls).to.deep.equal(['Paris']);
      expect(result.toolCalls.map((call) => [call.toolName, call.input])).to.deep.equal([['get_weather', { city: 'Paris' }]]);
      expect(result.finishReason).to.equal('tool-calls');
      const sentTools = upstream.requests[0]?.body?.tools as Array<{ function: { name: string; parameters: { properties: unknown } } }>;
      expect(sentTools[0]?.function.name).to.equal('get_weather');
      expect(sentTools[0]?.function.parameters.properties).to.deep.equal({ city: { type: 'string' } });
    });
  });
});
