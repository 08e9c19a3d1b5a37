/**
 * Chat-completions fields beyond the basics, through the official openai SDK:
 * parallel_tool_calls, legacy function calling, PDF file parts and logprobs.
 * Each test checks what the upstream received and what the caller got back.
 */
import { expect } from 'chai';
import OpenAI, { BadRequestError } from 'openai';
import type { ChatCompletionChunk, ChatCompletionCreateParamsNonStreaming } from 'openai/resources/chat/completions';
import type { RunningFreeway } from '../support/freeway.ts';
import { postChat } from '../support/http.ts';
import { sseEvents } from '../support/sse.ts';
import { keyHeaders } from '../support/keys.ts';
import { freewayOverOneUpstream, openaiClient, rejection } from '../support/suite.ts';
import { geminiSSE, openAISSE, openAIText, openAIToolCall, usage, type FakeUpstream, type SeenRequest } from '../support/upstream.ts';

const CEREBRAS = 'cerebras/llama-3.3-70b';
const GROQ = 'groq/llama-3.3-70b-versatile';
const GEMINI = 'google/gemini-2.5-flash';
const MISTRAL = 'mistral/mistral-small-latest';
const hi = [{ role: 'user' as const, content: 'Hi' }];
const PDF = `data:application/pdf;base64,${Buffer.from('%PDF-1.4\n1 0 obj <<>> endobj\ntrailer <<>>\n%%EOF').toString('base64')}`;

const weatherFunction = {
  name: 'get_weather',
  description: 'Current weather for a city',
  parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
};

async function chunksOf(stream: AsyncIterable<ChatCompletionChunk>): Promise<ChatCompletionChunk[]> {
  const chunks: ChatCompletionChunk[] = [];
  for await (const chunk of stream) chunks.push(chunk);
  return chunks;
}

describe('chat completions: parallel_tool_calls, legacy functions, PDFs, logprobs', function () {
  let upstream: FakeUpstream;
  let freeway: RunningFreeway;
  let openai: OpenAI;
  const keys = keyHeaders('cerebras', 'groq', 'google', 'mistral', 'cohere');

  const suite = freewayOverOneUpstream(['cerebras', 'groq', 'google', 'mistral', 'cohere'], (req, res) =>
    req.path.startsWith('/models/') ? geminiSSE(res, 'Hello there') : openAIText(res, 'Hello there', req),
  );
  before(function () {
    ({ upstream, freeway } = suite);
    openai = openaiClient(freeway, keys);
  });

  const sentBody = (): Record<string, unknown> => {
    expect(upstream.requests).to.have.length(1);
    return (upstream.requests[0] as SeenRequest).body as Record<string, unknown>;
  };

  describe('parallel_tool_calls', function () {
    const tools = [{ type: 'function' as const, function: weatherFunction }];

    for (const value of [false, true]) {
      it(`${value} reaches an OpenAI-compatible provider (Cerebras) as parallel_tool_calls`, async function () {
        await openai.chat.completions.create({ model: CEREBRAS, messages: hi, tools, parallel_tool_calls: value });
        expect(sentBody().parallel_tool_calls).to.equal(value);
      });
    }

    it('reaches Groq as parallel_tool_calls (through @ai-sdk/groq)', async function () {
      await openai.chat.completions.create({ model: GROQ, messages: hi, tools, parallel_tool_calls: false });
      expect(sentBody().parallel_tool_calls).to.equal(false);
    });

    it('is not sent when the caller leaves it out, nor to providers without it (Gemini, Cohere)', async function () {
      await openai.chat.completions.create({ model: CEREBRAS, messages: hi, tools });
      expect(sentBody()).not.to.have.property('parallel_tool_calls');
      upstream.requests.length = 0;
      await openai.chat.completions.create({ model: GEMINI, messages: hi, tools, parallel_tool_calls: false });
      expect(JSON.stringify(sentBody())).not.to.include('parallel');
      upstream.requests.length = 0;
      await openai.chat.completions.create({ model: 'cohere/command-a-03-2025', messages: hi, tools, parallel_tool_calls: false });
      expect(sentBody()).not.to.have.property('parallel_tool_calls');
    });

    it('a non-boolean is a 400 naming the field', async function () {
      const reply = await postChat(freeway.url, { model: CEREBRAS, messages: hi, parallel_tool_calls: 'yes' }, keys);
      expect(reply.status).to.equal(400);
      expect(reply.json.error).to.deep.equal({ message: 'Validation failed: parallel_tool_calls: must be boolean or null', type: 'invalid_request_error', code: 400 });
      expect(upstream.requests).to.have.length(0);
    });
  });

  describe('legacy function calling (functions, function_call)', function () {
    it('functions and function_call go upstream as tools and tool_choice, one call at a time', async function () {
      for (const [functionCall, toolChoice] of [
        ['auto', 'auto'],
        ['none', 'none'],
        [{ name: 'get_weather' }, { type: 'function', function: { name: 'get_weather' } }],
      ] as const) {
        upstream.requests.length = 0;
        await openai.chat.completions.create({ model: CEREBRAS, messages: hi, functions: [weatherFunction], function_call: functionCall });
        const body = sentBody();
        expect(body.tools).to.deep.equal([{ type: 'function', function: weatherFunction }]);
        expect(body.tool_choice).to.deep.equal(toolChoice);
        // Legacy function calling answers with at most one call.
        expect(body.parallel_tool_calls).to.equal(false);
      }
    });

    it('non-streaming: the call comes back as message.function_call with finish_reason function_call, not as tool_calls', async function () {
      upstream.handle((_req, res) => openAIToolCall(res, 'get_weather', '{"city":"Paris"}'));
      const completion = await openai.chat.completions.create({ model: CEREBRAS, messages: hi, functions: [weatherFunction] });
      const choice = completion.choices[0];
      expect(choice?.finish_reason).to.equal('function_call');
      expect(choice?.message).to.deep.equal({ role: 'assistant', content: null, function_call: { name: 'get_weather', arguments: '{"city":"Paris"}' } });
    });

    it('streaming: delta.function_call pieces, and the SDK helper rebuilds the call', async function () {
      upstream.handle((_req, res) => openAIToolCall(res, 'get_weather', '{"city":"Paris"}'));
      const stream = openai.chat.completions.stream({ model: CEREBRAS, messages: hi, functions: [weatherFunction] });
      const chunks: ChatCompletionChunk[] = [];
      // A copy: the helper merges later deltas into what it has seen.
      stream.on('chunk', (chunk) => chunks.push(structuredClone(chunk)));
      const final = await stream.finalChatCompletion();
      const deltas = chunks.map((chunk) => chunk.choices[0]?.delta).filter((delta) => delta?.function_call);
      expect(deltas[0]?.function_call).to.deep.equal({ name: 'get_weather', arguments: '' });
      expect(deltas.map((delta) => delta?.function_call?.arguments ?? '').join('')).to.equal('{"city":"Paris"}');
      expect(chunks.every((chunk) => chunk.choices[0]?.delta.tool_calls === undefined)).to.equal(true);
      expect(chunks.at(-1)?.choices[0]?.finish_reason).to.equal('function_call');
      expect(final.choices[0]?.message.function_call).to.deep.equal({ name: 'get_weather', arguments: '{"city":"Paris"}' });
      expect(final.choices[0]?.finish_reason).to.equal('function_call');
    });

    it('a round trip: the assistant function_call and the function result reach the upstream as a tool call and its result', async function () {
      const params: ChatCompletionCreateParamsNonStreaming = {
        model: CEREBRAS,
        functions: [weatherFunction],
        messages: [
          { role: 'user', content: 'Weather in Paris?' },
          { role: 'assistant', content: null, function_call: { name: 'get_weather', arguments: '{"city":"Paris"}' } },
          { role: 'function', name: 'get_weather', content: '{"temperature":21}' },
        ],
      };
      const completion = await openai.chat.completions.create(params);
      expect(completion.choices[0]?.message.content).to.equal('Hello there');
      const messages = sentBody().messages as Array<Record<string, any>>;
      expect(messages).to.have.length(3);
      const call = messages[1]?.tool_calls?.[0];
      expect(messages[1]).to.deep.include({ role: 'assistant', content: null });
      expect(call).to.deep.include({ type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } });
      expect(call.id).to.be.a('string').and.not.equal('');
      expect(messages[2]).to.deep.equal({ role: 'tool', tool_call_id: call.id, content: '{"temperature":21}' });
    });

    it('tools and functions together are a 400', async function () {
      const error = await rejection(() =>
        openai.chat.completions.create({ model: CEREBRAS, messages: hi, functions: [weatherFunction], tools: [{ type: 'function', function: weatherFunction }] }),
      );
      expect(error).to.be.instanceOf(BadRequestError);
      expect(error.error).to.deep.equal({ message: 'Validation failed: functions: send tools or the legacy functions, not both', type: 'invalid_request_error', code: 400 });
      expect(upstream.requests).to.have.length(0);
    });

    it('a function message without a name is a 400 naming the field', async function () {
      const reply = await postChat(freeway.url, { model: CEREBRAS, messages: [{ role: 'function', content: 'x' }] }, keys);
      expect(reply.status).to.equal(400);
      expect(reply.json.error).to.deep.equal({ message: 'Validation failed: messages.0.name: is required', type: 'invalid_request_error', code: 400 });
    });
  });

  describe('PDF file parts', function () {
    const document = (fileData: string) => [
      { role: 'user' as const, content: [{ type: 'text' as const, text: 'Summarize this.' }, { type: 'file' as const, file: { file_data: fileData, filename: 'report.pdf' } }] },
    ];

    it('reach Gemini as inline PDF data (openai SDK)', async function () {
      const completion = await openai.chat.completions.create({ model: GEMINI, messages: document(PDF) });
      expect(completion.choices[0]?.message.content).to.equal('Hello there');
      const contents = sentBody().contents as Array<{ parts: Array<Record<string, unknown>> }>;
      expect(contents[0]?.parts).to.deep.equal([{ text: 'Summarize this.' }, { inlineData: { mimeType: 'application/pdf', data: PDF.slice(PDF.indexOf(',') + 1) } }]);
    });

    it('free:auto with a PDF only picks models that take PDFs', async function () {
      const plain = await openai.chat.completions.create({ model: 'free:auto', messages: hi }).withResponse();
      expect(plain.response.headers.get('x-freeway-provider')).not.to.equal('google');
      upstream.requests.length = 0;
      const withPdf = await openai.chat.completions.create({ model: 'free:auto', messages: document(PDF) }).withResponse();
      expect(withPdf.response.headers.get('x-freeway-provider')).to.equal('google');
      const entry = freeway.catalog.byId.get(withPdf.response.headers.get('x-freeway-model') as string);
      expect(entry && 'spec' in entry && entry.spec.capabilities).to.include('pdf');
      expect(upstream.requests).to.have.length(1);
    });

    it('free:auto with a PDF and no key for a model that takes PDFs is a 400 that says so', async function () {
      const error = await rejection(() => openai.chat.completions.create({ model: 'free:auto', messages: document(PDF) }, { headers: { 'X-Google-Key': null } }));
      expect(error).to.be.instanceOf(BadRequestError);
      expect(error.message).to.match(/^400 Your keys \(.+\) have no model for free:auto that reads PDFs; keys of .*X-Google-Key.* do\./);
      expect(upstream.requests).to.have.length(0);
    });

    it('file_id is a 400: Freeway keeps no files', async function () {
      const reply = await postChat(freeway.url, { model: GEMINI, messages: [{ role: 'user', content: [{ type: 'file', file: { file_id: 'file-abc123' } }] }] }, keys);
      expect(reply.status).to.equal(400);
      expect(reply.json.error).to.deep.equal({
        message: 'Validation failed: messages.0.content.0.file.file_id: Freeway keeps no files; send the document inline as file_data',
        type: 'invalid_request_error',
        code: 400,
      });
      expect(upstream.requests).to.have.length(0);
    });

    for (const [fileData, detail] of [
      ['JVBERi0xLjQK', 'must be a base64 data URL (data:application/pdf;base64,...)'],
      ['data:text/plain;base64,aGVsbG8=', 'only application/pdf documents are supported'],
    ] as const) {
      it(`file_data ${fileData.slice(0, 20)}... is a 400: ${detail}`, async function () {
        const reply = await postChat(freeway.url, { model: GEMINI, messages: document(fileData) }, keys);
        expect(reply.status).to.equal(400);
        expect(reply.json.error).to.deep.equal({ message: `Validation failed: messages.0.content.1.file.file_data: ${detail}`, type: 'invalid_request_error', code: 400 });
        expect(upstream.requests).to.have.length(0);
      });
    }

    it('a file part without file_data or file_id is a 400', async function () {
      const reply = await postChat(freeway.url, { model: GEMINI, messages: [{ role: 'user', content: [{ type: 'file', file: { filename: 'a.pdf' } }] }] }, keys);
      expect(reply.status).to.equal(400);
      expect(reply.json.error).to.deep.equal({ message: 'Validation failed: messages.0.content.0.file.file_data: is required', type: 'invalid_request_error', code: 400 });
    });
  });

  describe('logprobs', function () {
    const token = (text: string, logprob: number) => ({
      token: text,
      logprob,
      bytes: [...Buffer.from(text)],
      top_logprobs: [{ token: text, logprob, bytes: [...Buffer.from(text)] }],
    });
    const hello = token('Hello', -0.01);
    const there = token(' there', -0.5);

    /** An OpenAI-format stream whose content chunks carry their logprobs, as OpenAI's do. */
    const withLogprobs = (_req: SeenRequest, res: Parameters<typeof openAISSE>[0]): void =>
      openAISSE(res, [
        { choices: [{ index: 0, delta: { role: 'assistant', content: 'Hello' }, logprobs: { content: [hello], refusal: null }, finish_reason: null }] },
        { choices: [{ index: 0, delta: { content: ' there' }, logprobs: { content: [there], refusal: null }, finish_reason: null }] },
        { choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] },
        { choices: [], usage },
      ]);

    it('are asked of providers that return them (Cerebras) and come back in OpenAI\'s shape, non-streaming', async function () {
      upstream.handle(withLogprobs);
      const completion = await openai.chat.completions.create({ model: CEREBRAS, messages: hi, logprobs: true, top_logprobs: 1 });
      expect(sentBody()).to.include({ logprobs: true, top_logprobs: 1 });
      expect(completion.choices[0]?.message.content).to.equal('Hello there');
      expect(completion.choices[0]?.logprobs).to.deep.equal({ content: [hello, there], refusal: null });
    });

    it('streaming: each content chunk carries the logprobs of its tokens, and the SDK helper collects them', async function () {
      upstream.handle(withLogprobs);
      const stream = openai.chat.completions.stream({ model: CEREBRAS, messages: hi, logprobs: true, top_logprobs: 1 });
      const chunks: ChatCompletionChunk[] = [];
      stream.on('chunk', (chunk) => chunks.push(structuredClone(chunk)));
      const final = await stream.finalChatCompletion();
      const content = chunks.filter((chunk) => chunk.choices[0]?.delta.content);
      expect(content.map((chunk) => [chunk.choices[0]?.delta.content, chunk.choices[0]?.logprobs?.content])).to.deep.equal([
        ['Hello', [hello]],
        [' there', [there]],
      ]);
      expect(final.choices[0]?.logprobs?.content).to.deep.equal([hello, there]);
    });

    it('without logprobs: nothing is asked, and an answer has logprobs null even if the upstream sent some', async function () {
      upstream.handle(withLogprobs);
      const completion = await openai.chat.completions.create({ model: CEREBRAS, messages: hi });
      expect(sentBody()).not.to.have.any.keys('logprobs', 'top_logprobs');
      expect(completion.choices[0]?.logprobs).to.equal(null);
      upstream.requests.length = 0;
      const chunks = await chunksOf(await openai.chat.completions.create({ model: CEREBRAS, messages: hi, stream: true }));
      expect(chunks.every((chunk) => chunk.choices[0]?.logprobs == null)).to.equal(true);
    });

    it('a provider that does not document logprobs (Mistral) is not sent them; the answer has logprobs null', async function () {
      const completion = await openai.chat.completions.create({ model: MISTRAL, messages: hi, logprobs: true, top_logprobs: 3 });
      expect(sentBody()).not.to.have.any.keys('logprobs', 'top_logprobs');
      expect(completion.choices[0]?.message.content).to.equal('Hello there');
      expect(completion.choices[0]?.logprobs).to.equal(null);
    });

    it('top_logprobs above 20 is a 400', async function () {
      const reply = await postChat(freeway.url, { model: CEREBRAS, messages: hi, logprobs: true, top_logprobs: 21 }, keys);
      expect(reply.status).to.equal(400);
      expect(reply.json.error).to.deep.equal({ message: 'Validation failed: top_logprobs: must be <= 20', type: 'invalid_request_error', code: 400 });
    });

    it('raw: the stream has no logprobs on chunks when none were asked for', async function () {
      upstream.handle(withLogprobs);
      const reply = await postChat(freeway.url, { model: CEREBRAS, messages: hi, stream: true }, keys);
      expect(reply.text).not.to.include('logprob');
      expect(sseEvents(reply.text).at(-1)).to.equal('[DONE]');
    });
  });
});
