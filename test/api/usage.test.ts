/**
 * Usage: Freeway reports the token counts the upstream reported and nothing
 * else, through the official openai SDK and raw HTTP, streaming and not.
 */
import { expect } from 'chai';
import OpenAI from 'openai';
import type { ChatCompletionChunk } from 'openai/resources/chat/completions';
import { startFreeway, type RunningFreeway } from '../support/freeway.ts';
import { postChat } from '../support/http.ts';
import { sseEvents } from '../support/sse.ts';
import { keyHeaders } from '../support/keys.ts';
import { json, openAISSE, startUpstream, type FakeUpstream, type SeenRequest } from '../support/upstream.ts';

const PINNED = 'cerebras/llama-3.3-70b';
const GEMINI = 'google/gemini-2.5-flash';
const COHERE = 'cohere/command-a-03-2025';
const hi = [{ role: 'user' as const, content: 'Hi' }];

/** An OpenAI-format stream answering "Hello there", with `usage` on its last chunk when given. */
function streamWithUsage(usage: Record<string, unknown> | undefined) {
  return (_req: SeenRequest, res: Parameters<typeof openAISSE>[0]): void =>
    openAISSE(res, [
      { choices: [{ index: 0, delta: { role: 'assistant', content: 'Hello ' }, finish_reason: null }] },
      { choices: [{ index: 0, delta: { content: 'there' }, finish_reason: null }] },
      { choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] },
      ...(usage ? [{ choices: [], usage }] : []),
    ]);
}

/** Gemini's streamGenerateContent?alt=sse answer with the given usageMetadata on its last event. */
function geminiWithUsage(usageMetadata: Record<string, unknown> | undefined) {
  return (_req: SeenRequest, res: Parameters<typeof openAISSE>[0]): void => {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.write(`data: ${JSON.stringify({ candidates: [{ content: { role: 'model', parts: [{ text: 'Hello ' }] }, index: 0 }] })}\r\n\r\n`);
    res.write(
      `data: ${JSON.stringify({
        candidates: [{ content: { role: 'model', parts: [{ text: 'there' }] }, finishReason: 'STOP', index: 0 }],
        ...(usageMetadata ? { usageMetadata } : {}),
      })}\r\n\r\n`,
    );
    res.end();
  };
}

async function chunksOf(stream: AsyncIterable<ChatCompletionChunk>): Promise<ChatCompletionChunk[]> {
  const chunks: ChatCompletionChunk[] = [];
  for await (const chunk of stream) chunks.push(chunk);
  return chunks;
}

describe('usage: only what the upstream reported', function () {
  let upstream: FakeUpstream;
  let freeway: RunningFreeway;
  let openai: OpenAI;

  before(async function () {
    upstream = await startUpstream();
    freeway = await startFreeway({ env: { CEREBRAS_BASE_URL: upstream.url, GOOGLE_BASE_URL: upstream.url, COHERE_BASE_URL: upstream.url, DEEPSEEK_BASE_URL: upstream.url } });
    openai = new OpenAI({ baseURL: `${freeway.url}/v1`, apiKey: 'unused', defaultHeaders: keyHeaders('cerebras', 'google', 'cohere'), maxRetries: 0, timeout: 5000 });
  });

  after(async function () {
    await freeway.close();
    await upstream.close();
  });

  beforeEach(function () {
    upstream.requests.length = 0;
  });

  /** The usage of the non-streaming answer (raw JSON, so an absent field is really absent) and of the stream's usage chunk. */
  async function usageBothWays(model: string): Promise<{ body: any; streamed: any[] }> {
    const reply = await postChat(freeway.url, { model, messages: hi }, keyHeaders('cerebras', 'google', 'cohere', 'deepseek'));
    expect(reply.status, reply.text).to.equal(200);
    const stream = await postChat(freeway.url, { model, messages: hi, stream: true, stream_options: { include_usage: true } }, keyHeaders('cerebras', 'google', 'cohere', 'deepseek'));
    expect(stream.status, stream.text).to.equal(200);
    const events = sseEvents(stream.text);
    expect(events.at(-1)).to.equal('[DONE]');
    return { body: reply.json, streamed: events.slice(0, -1) };
  }

  it('an upstream that reports no usage: no usage in the answer, no usage chunk in the stream (openai SDK)', async function () {
    upstream.handle(streamWithUsage(undefined));
    const completion = await openai.chat.completions.create({ model: PINNED, messages: hi });
    expect(completion.choices[0]?.message.content).to.equal('Hello there');
    expect(completion.usage).to.equal(undefined);
    expect(completion).not.to.have.property('usage');

    const chunks = await chunksOf(await openai.chat.completions.create({ model: PINNED, messages: hi, stream: true, stream_options: { include_usage: true } }));
    expect(chunks.map((chunk) => chunk.choices[0]?.delta.content ?? '').join('')).to.equal('Hello there');
    expect(chunks.at(-1)?.choices[0]?.finish_reason).to.equal('stop');
    for (const chunk of chunks) {
      expect(chunk.choices).to.have.length(1);
      expect(chunk).not.to.have.property('usage');
    }
    // Freeway did ask for usage.
    for (const seen of upstream.requests) expect(seen.body?.stream_options).to.deep.equal({ include_usage: true });
  });

  it('cached and reasoning tokens are carried as prompt_tokens_details and completion_tokens_details (openai SDK)', async function () {
    upstream.handle(
      streamWithUsage({
        prompt_tokens: 120,
        completion_tokens: 40,
        total_tokens: 160,
        prompt_tokens_details: { cached_tokens: 100 },
        completion_tokens_details: { reasoning_tokens: 25 },
      }),
    );
    const expected = {
      prompt_tokens: 120,
      completion_tokens: 40,
      total_tokens: 160,
      prompt_tokens_details: { cached_tokens: 100 },
      completion_tokens_details: { reasoning_tokens: 25 },
      promptTokens: 120,
      completionTokens: 40,
      totalTokens: 160,
    };
    const completion = await openai.chat.completions.create({ model: PINNED, messages: hi });
    expect(completion.usage).to.deep.equal(expected);
    expect(completion.usage?.prompt_tokens_details?.cached_tokens).to.equal(100);
    expect(completion.usage?.completion_tokens_details?.reasoning_tokens).to.equal(25);

    const chunks = await chunksOf(await openai.chat.completions.create({ model: PINNED, messages: hi, stream: true, stream_options: { include_usage: true } }));
    const usageChunk = chunks.at(-1);
    expect(usageChunk?.choices).to.deep.equal([]);
    expect(usageChunk?.usage).to.deep.equal(expected);
  });

  it('counts without details: no details are made up', async function () {
    upstream.handle(streamWithUsage({ prompt_tokens: 7, completion_tokens: 3, total_tokens: 10 }));
    const expected = { prompt_tokens: 7, completion_tokens: 3, total_tokens: 10, promptTokens: 7, completionTokens: 3, totalTokens: 10 };
    const { body, streamed } = await usageBothWays(PINNED);
    expect(body.usage).to.deep.equal(expected);
    expect(streamed.at(-1).usage).to.deep.equal(expected);
  });

  it('a count the upstream left out is left out, and so is the total it would need', async function () {
    upstream.handle(streamWithUsage({ prompt_tokens: 7 }));
    const { body, streamed } = await usageBothWays(PINNED);
    expect(body.usage).to.deep.equal({ prompt_tokens: 7, promptTokens: 7 });
    expect(streamed.at(-1).usage).to.deep.equal({ prompt_tokens: 7, promptTokens: 7 });
  });

  it('DeepSeek: prompt_cache_hit_tokens are the cached tokens', async function () {
    upstream.handle(
      streamWithUsage({
        prompt_tokens: 64,
        completion_tokens: 10,
        total_tokens: 74,
        prompt_cache_hit_tokens: 48,
        prompt_cache_miss_tokens: 16,
        completion_tokens_details: { reasoning_tokens: 4 },
      }),
    );
    const { body, streamed } = await usageBothWays('deepseek/deepseek-chat');
    const expected = {
      prompt_tokens: 64,
      completion_tokens: 10,
      total_tokens: 74,
      prompt_tokens_details: { cached_tokens: 48 },
      completion_tokens_details: { reasoning_tokens: 4 },
      promptTokens: 64,
      completionTokens: 10,
      totalTokens: 74,
    };
    expect(body.usage).to.deep.equal(expected);
    expect(streamed.at(-1).usage).to.deep.equal(expected);
  });

  it('Gemini: cached and thinking tokens from usageMetadata; completion_tokens counts the thinking', async function () {
    upstream.handle(geminiWithUsage({ promptTokenCount: 50, cachedContentTokenCount: 32, candidatesTokenCount: 5, thoughtsTokenCount: 12, totalTokenCount: 67 }));
    const expected = {
      prompt_tokens: 50,
      completion_tokens: 17,
      total_tokens: 67,
      prompt_tokens_details: { cached_tokens: 32 },
      completion_tokens_details: { reasoning_tokens: 12 },
      promptTokens: 50,
      completionTokens: 17,
      totalTokens: 67,
    };
    const { body, streamed } = await usageBothWays(GEMINI);
    expect(upstream.requests[0]?.path).to.equal('/models/gemini-2.5-flash:streamGenerateContent?alt=sse');
    expect(body.choices[0].message.content).to.equal('Hello there');
    expect(body.usage).to.deep.equal(expected);
    expect(streamed.at(-1).usage).to.deep.equal(expected);
  });

  it('Gemini without usageMetadata: no usage', async function () {
    upstream.handle(geminiWithUsage(undefined));
    const { body, streamed } = await usageBothWays(GEMINI);
    expect(body).not.to.have.property('usage');
    expect(streamed.every((chunk) => !('usage' in chunk))).to.equal(true);
  });

  describe('a provider whose streams carry no usage (Cohere)', function () {
    /** Cohere's compatibility API: JSON with usage when not streaming, SSE without usage when streaming. */
    const cohere = (delayMs = 0) => (req: SeenRequest, res: Parameters<typeof openAISSE>[0]) => {
      if (req.body?.stream === true) {
        streamWithUsage(undefined)(req, res);
        return;
      }
      const answer = () =>
        json(res, 200, {
          id: 'chatcmpl-cohere',
          object: 'chat.completion',
          created: 1,
          model: String(req.body?.model),
          choices: [{ index: 0, message: { role: 'assistant', content: 'Hello there' }, finish_reason: 'stop' }],
          usage: { prompt_tokens: 9, completion_tokens: 2, total_tokens: 11 },
        });
      if (delayMs === 0) answer();
      else setTimeout(answer, delayMs);
    };

    it('non-streaming callers get one non-streaming upstream call and its usage (openai SDK)', async function () {
      upstream.handle(cohere());
      const completion = await openai.chat.completions.create({ model: COHERE, messages: hi });
      expect(completion.choices[0]?.message).to.deep.include({ role: 'assistant', content: 'Hello there' });
      expect(completion.choices[0]?.finish_reason).to.equal('stop');
      expect(completion.usage).to.deep.equal({ prompt_tokens: 9, completion_tokens: 2, total_tokens: 11, promptTokens: 9, completionTokens: 2, totalTokens: 11 });
      expect(upstream.requests).to.have.length(1);
      const sent = upstream.requests[0]?.body as Record<string, unknown>;
      expect(sent.model).to.equal('command-a-03-2025');
      expect(sent).not.to.have.any.keys('stream', 'stream_options', 'user');
    });

    it('streaming callers are still streamed, with no usage chunk since Cohere reports none', async function () {
      upstream.handle(cohere());
      const chunks = await chunksOf(await openai.chat.completions.create({ model: COHERE, messages: hi, stream: true, stream_options: { include_usage: true } }));
      expect(chunks.map((chunk) => chunk.choices[0]?.delta.content ?? '').join('')).to.equal('Hello there');
      expect(chunks.every((chunk) => chunk.usage == null && chunk.choices.length === 1)).to.equal(true);
      expect(upstream.requests[0]?.body?.stream).to.equal(true);
      expect(upstream.requests[0]?.body).not.to.have.property('stream_options');
    });

    describe('timeouts of the non-streaming call', function () {
      let strict: RunningFreeway;

      before(async function () {
        strict = await startFreeway({ env: { COHERE_BASE_URL: upstream.url, FIRST_TOKEN_TIMEOUT_MS: '100', REQUEST_TIMEOUT_MS: '1200' } });
      });

      after(async function () {
        await strict.close();
      });

      it('the first-token timeout does not apply: an answer slower than FIRST_TOKEN_TIMEOUT_MS but within REQUEST_TIMEOUT_MS arrives', async function () {
        upstream.handle(cohere(400));
        const reply = await postChat(strict.url, { model: COHERE, messages: hi }, keyHeaders('cohere'));
        expect(reply.status, reply.text).to.equal(200);
        expect(reply.json.usage).to.include({ prompt_tokens: 9, completion_tokens: 2 });
      });

      it('REQUEST_TIMEOUT_MS bounds it: an upstream that never answers is a 502 timeout', async function () {
        upstream.handle(() => {});
        const reply = await postChat(strict.url, { model: COHERE, messages: hi }, keyHeaders('cohere'));
        expect(reply.status).to.equal(502);
        expect(reply.json.error).to.deep.equal({ message: 'Provider failed: cohere: timeout', type: 'freeway_provider_error', code: 502 });
        expect(reply.headers.get('x-freeway-attempts')).to.match(/^cohere\/command-a-03-2025 timeout \d+ms$/);
        expect(reply.ms).to.be.within(1100, 5000);
      });
    });
  });
});
