/**
 * The response cache (CACHE=memory) through every cached endpoint, streamed and whole, against a
 * fake OpenAI-compatible provider on 127.0.0.1 (Groq's base URL pointed at it): a repeated
 * request is answered from the cache with no upstream call, in the client API's own format;
 * anything that shapes the answer, or the keys, makes another entry; the per-request
 * directives hold; errors and answers cut short are never kept.
 */
import { expect } from 'chai';
import type { ServerResponse } from 'node:http';
import { startFreeway, type RunningFreeway } from '../support/freeway.ts';
import { testKeys } from '../support/keys.ts';
import { parseSse } from '../support/sse.ts';
import { json, openAIError, openAISSE, openAIText, startUpstream, usage, type FakeUpstream, type SeenRequest } from '../support/upstream.ts';
import { GROQ_FIRST } from '../support/current-models.ts';

const MODEL = `groq/${GROQ_FIRST}`;
const ANSWER = 'The answer comes from the upstream';
const groqKey = (n = 0): Record<string, string> => ({ 'X-Groq-Key': n === 0 ? (testKeys.groq as string) : `${(testKeys.groq as string).slice(0, -4)}${String(n).padStart(4, '0')}` });

interface Sent {
  readonly status: number;
  readonly headers: Headers;
  readonly body: string;
}

interface ApiCase {
  readonly name: string;
  /** Sends `prompt` through this client API. */
  send(url: string, prompt: string, options: { stream: boolean; headers?: Record<string, string>; extra?: Record<string, unknown> }): Promise<Sent>;
  /** The answer's text as the client reads it. */
  text(sent: Sent, stream: boolean): string;
}

async function post(url: string, path: string, body: unknown, headers: Record<string, string> = {}): Promise<Sent> {
  const res = await fetch(`${url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
  return { status: res.status, headers: res.headers, body: await res.text() };
}

const dataOf = (sent: Sent): any[] => parseSse(sent.body).filter(({ data }) => data !== '[DONE]').map(({ data }) => JSON.parse(data));

const apis: ApiCase[] = [
  {
    name: 'chat completions',
    send: (url, prompt, { stream, headers = {}, extra = {} }) =>
      post(url, '/v1/chat/completions', { model: MODEL, messages: [{ role: 'user', content: prompt }], stream, ...extra }, { ...groqKey(), ...headers }),
    text: (sent, stream) =>
      stream ? dataOf(sent).map((event) => event.choices?.[0]?.delta?.content ?? '').join('') : JSON.parse(sent.body).choices[0].message.content,
  },
  {
    name: 'Responses',
    send: (url, prompt, { stream, headers = {}, extra = {} }) => post(url, '/v1/responses', { model: MODEL, input: prompt, stream, ...extra }, { ...groqKey(), ...headers }),
    text: (sent, stream) =>
      stream
        ? dataOf(sent).filter((event) => event.type === 'response.output_text.delta').map((event) => event.delta).join('')
        : JSON.parse(sent.body).output.flatMap((item: any) => item.content ?? []).map((part: any) => part.text ?? '').join(''),
  },
  {
    name: 'Messages',
    send: (url, prompt, { stream, headers = {}, extra = {} }) =>
      post(url, '/v1/messages', { model: MODEL, max_tokens: 200, messages: [{ role: 'user', content: prompt }], stream, ...extra }, { 'anthropic-version': '2023-06-01', ...groqKey(), ...headers }),
    text: (sent, stream) =>
      stream
        ? dataOf(sent).filter((event) => event.type === 'content_block_delta').map((event) => event.delta.text ?? '').join('')
        : JSON.parse(sent.body).content.map((block: any) => block.text ?? '').join(''),
  },
  {
    name: 'Gemini generateContent',
    send: (url, prompt, { stream, headers = {}, extra = {} }) =>
      post(url, `/v1beta/models/${MODEL}:${stream ? 'streamGenerateContent?alt=sse' : 'generateContent'}`, { contents: [{ role: 'user', parts: [{ text: prompt }] }], ...extra }, { ...groqKey(), ...headers }),
    text: (sent, stream) => {
      const chunks = stream ? dataOf(sent) : [JSON.parse(sent.body)];
      return chunks.flatMap((chunk) => chunk.candidates?.[0]?.content?.parts ?? []).map((part: any) => part.text ?? '').join('');
    },
  },
];

/** Each prompt once in the whole file, so that no test sees another's entry. */
let prompts = 0;
const fresh = (what: string): string => `${what} #${++prompts} ${Date.now()}`;

const chatCalls = (upstream: FakeUpstream): number => upstream.requests.filter((req) => req.path.endsWith('/chat/completions')).length;

describe('response cache: every cached endpoint, streamed and whole (CACHE=memory)', function () {
  this.timeout(30_000);
  let upstream: FakeUpstream;
  let freeway: RunningFreeway;

  before(async function () {
    upstream = await startUpstream();
    freeway = await startFreeway({ env: { CACHE: 'memory', GROQ_BASE_URL: upstream.url, MISTRAL_BASE_URL: upstream.url } });
  });
  after(async function () {
    await freeway.close();
    await upstream.close();
  });
  beforeEach(function () {
    upstream.handle((req, res) => openAIText(res, ANSWER, req));
  });

  for (const api of apis) {
    for (const stream of [false, true]) {
      it(`${api.name}, ${stream ? 'streamed' : 'whole'}: the second identical request is a hit, with no upstream call, in the API's own format`, async () => {
        const prompt = fresh(api.name);
        const first = await api.send(freeway.url, prompt, { stream });
        expect(first.status, first.body).to.equal(200);
        expect(first.headers.get('x-freeway-cache')).to.equal('miss');
        expect(api.text(first, stream)).to.equal(ANSWER);
        const calls = chatCalls(upstream);
        const second = await api.send(freeway.url, prompt, { stream });
        expect(second.status, second.body).to.equal(200);
        expect(chatCalls(upstream)).to.equal(calls);
        expect(second.headers.get('x-freeway-cache')).to.equal('hit');
        expect(second.headers.get('age')).to.match(/^\d+$/);
        expect(second.headers.get('x-freeway-provider')).to.equal('groq');
        expect(second.headers.get('x-freeway-model')).to.equal(first.headers.get('x-freeway-model'));
        expect(second.headers.get('content-type')).to.equal(first.headers.get('content-type'));
        expect(api.text(second, stream)).to.equal(ANSWER);
        if (stream) {
          // The same events in the same order; only ids and timestamps differ.
          const kinds = (sent: Sent): string[] => parseSse(sent.body).map(({ event, data }) => event ?? (data === '[DONE]' ? data : Object.keys(JSON.parse(data)).sort().join(',')));
          // The same kinds of events; a kept answer comes in fewer, larger pieces.
          const firstKinds = new Set(kinds(first));
          for (const kind of kinds(second)) expect(firstKinds, kind).to.include(kind);
        }
      });
    }
  }

  it('a tool call and reasoning are replayed as the API streams them: chat completions and Messages, streamed and whole', async () => {
    const weather = { type: 'function', function: { name: 'weather', parameters: { type: 'object', properties: { city: { type: 'string' } } } } };
    const args = '{"city":"Lisbon"}';
    upstream.handle((req, res) => {
      if (req.body?.stream !== true) return openAIText(res, 'unused', req);
      openAISSE(res, [
        { choices: [{ index: 0, delta: { role: 'assistant', reasoning: 'The user wants weather. ' }, finish_reason: null }] },
        { choices: [{ index: 0, delta: { tool_calls: [{ index: 0, id: 'call_1', type: 'function', function: { name: 'weather', arguments: args.slice(0, 5) } }] }, finish_reason: null }] },
        { choices: [{ index: 0, delta: { tool_calls: [{ index: 0, function: { arguments: args.slice(5) } }] }, finish_reason: null }] },
        { choices: [{ index: 0, delta: {}, finish_reason: 'tool_calls' }], usage },
      ]);
    });
    const chatPrompt = fresh('tool chat');
    const chatTool = (stream: boolean): Promise<Sent> =>
      post(freeway.url, '/v1/chat/completions', { model: MODEL, messages: [{ role: 'user', content: chatPrompt }], tools: [weather], stream }, groqKey());
    const chatCall = (sent: Sent, stream: boolean): unknown => {
      if (!stream) return JSON.parse(sent.body).choices[0].message.tool_calls.map((call: any) => [call.function.name, call.function.arguments]);
      const events = dataOf(sent);
      const name = events.flatMap((event) => event.choices?.[0]?.delta?.tool_calls ?? []).find((call: any) => call.function?.name)?.function.name;
      const argsText = events.flatMap((event) => event.choices?.[0]?.delta?.tool_calls ?? []).map((call: any) => call.function?.arguments ?? '').join('');
      const reasoning = events.map((event) => event.choices?.[0]?.delta?.reasoning_content ?? '').join('');
      const finish = events.map((event) => event.choices?.[0]?.finish_reason).find(Boolean);
      return [[name, argsText]].concat(reasoning ? [[reasoning, finish]] : [[finish]]);
    };
    for (const stream of [true, false]) {
      const first = await chatTool(stream);
      const calls = chatCalls(upstream);
      const second = await chatTool(stream);
      expect(second.headers.get('x-freeway-cache')).to.equal('hit');
      expect(chatCalls(upstream)).to.equal(calls);
      expect(chatCall(second, stream)).to.deep.equal(chatCall(first, stream));
    }
    expect(chatCall(await chatTool(true), true)).to.deep.equal([['weather', args], ['The user wants weather. ', 'tool_calls']]);

    const messagesPrompt = fresh('tool messages');
    const messagesTool = (stream: boolean): Promise<Sent> =>
      post(
        freeway.url,
        '/v1/messages',
        { model: MODEL, max_tokens: 200, messages: [{ role: 'user', content: messagesPrompt }], tools: [{ name: 'weather', input_schema: weather.function.parameters }], stream },
        { 'anthropic-version': '2023-06-01', ...groqKey() },
      );
    const messagesCall = (sent: Sent, stream: boolean): unknown => {
      if (!stream) return JSON.parse(sent.body).content.map((block: any) => [block.type, block.name ?? block.thinking ?? '', block.input ?? null]);
      const events = dataOf(sent);
      const starts = events.filter((event) => event.type === 'content_block_start').map((event) => [event.content_block.type, event.content_block.name ?? '']);
      const json = events.filter((event) => event.delta?.type === 'input_json_delta').map((event) => event.delta.partial_json).join('');
      const stop = events.find((event) => event.type === 'message_delta')?.delta?.stop_reason;
      return [starts, JSON.parse(json), stop];
    };
    for (const stream of [true, false]) {
      const first = await messagesTool(stream);
      expect(first.status, first.body).to.equal(200);
      const calls = chatCalls(upstream);
      const second = await messagesTool(stream);
      expect(second.headers.get('x-freeway-cache')).to.equal('hit');
      expect(chatCalls(upstream)).to.equal(calls);
      expect(messagesCall(second, stream)).to.deep.equal(messagesCall(first, stream));
    }
    expect(messagesCall(await messagesTool(true), true)).to.deep.equal([[['thinking', ''], ['tool_use', 'weather']], { city: 'Lisbon' }, 'tool_use']);
  });

  it('a streamed answer and a whole one share one entry, and so may two client APIs that map to the same call', async () => {
    const prompt = fresh('shared');
    const [chat, , , gemini] = apis as [ApiCase, ApiCase, ApiCase, ApiCase];
    expect((await chat.send(freeway.url, prompt, { stream: true })).headers.get('x-freeway-cache')).to.equal('miss');
    const calls = chatCalls(upstream);
    const whole = await chat.send(freeway.url, prompt, { stream: false });
    expect(whole.headers.get('x-freeway-cache')).to.equal('hit');
    expect(chat.text(whole, false)).to.equal(ANSWER);
    expect(chatCalls(upstream)).to.equal(calls);
    // Gemini's generateContent with the same one user turn maps to the same call options.
    const viaGemini = await gemini.send(freeway.url, prompt, { stream: true });
    expect(viaGemini.headers.get('x-freeway-cache')).to.equal('hit');
    expect(gemini.text(viaGemini, true)).to.equal(ANSWER);
    expect(chatCalls(upstream)).to.equal(calls);
  });

  it('a different key, parameter, tool or message is a miss', async () => {
    const [chat] = apis as [ApiCase];
    const prompt = fresh('differs');
    await chat.send(freeway.url, prompt, { stream: false });
    const variants: Array<[string, Parameters<ApiCase['send']>[2], string]> = [
      ['another key', { stream: false, headers: groqKey(7) }, prompt],
      ['temperature', { stream: false, extra: { temperature: 0.3 } }, prompt],
      ['top_p', { stream: false, extra: { top_p: 0.5 } }, prompt],
      ['max tokens', { stream: false, extra: { max_tokens: 77 } }, prompt],
      ['stop', { stream: false, extra: { stop: ['END'] } }, prompt],
      ['seed', { stream: false, extra: { seed: 4 } }, prompt],
      ['response format', { stream: false, extra: { response_format: { type: 'json_object' } } }, prompt],
      ['a tool', { stream: false, extra: { tools: [{ type: 'function', function: { name: 'lookup', parameters: { type: 'object', properties: {} } } }] } }, prompt],
      ['tool choice', { stream: false, extra: { tools: [{ type: 'function', function: { name: 'lookup', parameters: { type: 'object', properties: {} } } }], tool_choice: 'required' } }, prompt],
      ['the message', { stream: false }, `${prompt}!`],
    ];
    for (const [what, options, text] of variants) {
      const calls = chatCalls(upstream);
      const sent = await chat.send(freeway.url, text, options);
      expect(sent.status, `${what}: ${sent.body}`).to.equal(200);
      expect(sent.headers.get('x-freeway-cache'), what).to.equal('miss');
      expect(chatCalls(upstream), what).to.equal(calls + 1);
    }
    const responses = apis[1] as ApiCase;
    await responses.send(freeway.url, prompt, { stream: false });
    const calls = chatCalls(upstream);
    const effort = await responses.send(freeway.url, prompt, { stream: false, extra: { reasoning: { effort: 'low' } } });
    expect(effort.headers.get('x-freeway-cache'), 'reasoning effort').to.equal('miss');
    expect(chatCalls(upstream), 'reasoning effort').to.equal(calls + 1);
    // Each kept its own answer: the same variant again is a hit.
    expect((await chat.send(freeway.url, prompt, { stream: false, extra: { seed: 4 } })).headers.get('x-freeway-cache')).to.equal('hit');
    expect((await chat.send(freeway.url, prompt, { stream: false, headers: groqKey(7) })).headers.get('x-freeway-cache')).to.equal('hit');
  });

  it('Cache-Control: no-cache skips the lookup and keeps the fresh answer', async () => {
    const [chat] = apis as [ApiCase];
    const prompt = fresh('no-cache');
    await chat.send(freeway.url, prompt, { stream: false });
    upstream.handle((req, res) => openAIText(res, 'A fresher answer', req));
    const calls = chatCalls(upstream);
    const fresher = await chat.send(freeway.url, prompt, { stream: false, headers: { 'Cache-Control': 'no-cache' } });
    expect(fresher.headers.get('x-freeway-cache')).to.equal('miss');
    expect(chat.text(fresher, false)).to.equal('A fresher answer');
    expect(chatCalls(upstream)).to.equal(calls + 1);
    const again = await chat.send(freeway.url, prompt, { stream: true });
    expect(again.headers.get('x-freeway-cache')).to.equal('hit');
    expect(chat.text(again, true)).to.equal('A fresher answer');
  });

  for (const [name, headers] of [
    ['Cache-Control: no-store', { 'Cache-Control': 'no-store' }],
    ['X-Freeway-Cache: off', { 'X-Freeway-Cache': 'off' }],
  ] as const) {
    it(`${name} neither reads nor keeps`, async () => {
      const [chat] = apis as [ApiCase];
      const kept = fresh('kept');
      await chat.send(freeway.url, kept, { stream: false });
      const calls = chatCalls(upstream);
      const bypass = await chat.send(freeway.url, kept, { stream: true, headers });
      expect(bypass.headers.get('x-freeway-cache')).to.equal('off');
      expect(chatCalls(upstream)).to.equal(calls + 1);
      const unkept = fresh('unkept');
      await chat.send(freeway.url, unkept, { stream: false, headers });
      expect((await chat.send(freeway.url, unkept, { stream: false })).headers.get('x-freeway-cache')).to.equal('miss');
    });
  }

  it('an error is never kept', async () => {
    const [chat] = apis as [ApiCase];
    const prompt = fresh('error');
    upstream.handle((_req, res) => openAIError(res, 400, 'The request was refused'));
    for (const stream of [false, true]) {
      const failed = await chat.send(freeway.url, prompt, { stream });
      expect(failed.status).to.equal(400);
      expect(failed.headers.get('x-freeway-cache')).to.equal('miss');
    }
    upstream.handle((req, res) => openAIText(res, ANSWER, req));
    const calls = chatCalls(upstream);
    const answered = await chat.send(freeway.url, prompt, { stream: false });
    expect(answered.headers.get('x-freeway-cache')).to.equal('miss');
    expect(chatCalls(upstream)).to.equal(calls + 1);
  });

  it('a stream cut short by the upstream is never kept', async () => {
    const [chat] = apis as [ApiCase];
    const prompt = fresh('cut');
    // Text, then the stream ends without a finish: a failure after the first byte.
    upstream.handle((_req, res) => openAISSE(res, [{ choices: [{ index: 0, delta: { role: 'assistant', content: 'Half an ' }, finish_reason: null }] }], false));
    const cut = await chat.send(freeway.url, prompt, { stream: true });
    expect(cut.status).to.equal(200);
    const events = dataOf(cut);
    expect(events.at(-1)?.error?.type).to.equal('freeway_provider_error');
    upstream.handle((req, res) => openAIText(res, ANSWER, req));
    const calls = chatCalls(upstream);
    const answered = await chat.send(freeway.url, prompt, { stream: true });
    expect(answered.headers.get('x-freeway-cache')).to.equal('miss');
    expect(chatCalls(upstream)).to.equal(calls + 1);
  });

  it('a stream whose caller went away before its end is never kept', async () => {
    const prompt = fresh('gone');
    let release: () => void = () => {};
    const released = new Promise<void>((resolve) => (release = resolve));
    upstream.handle(async (_req, res: ServerResponse) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(`data: ${JSON.stringify({ id: 'c', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [{ index: 0, delta: { role: 'assistant', content: 'First words ' }, finish_reason: null }] })}\n\n`);
      await released;
      res.write(`data: ${JSON.stringify({ id: 'c', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [{ index: 0, delta: {}, finish_reason: 'stop' }], usage })}\n\ndata: [DONE]\n\n`);
      res.end();
    });
    const caller = new AbortController();
    const res = await fetch(`${freeway.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...groqKey() },
      body: JSON.stringify({ model: MODEL, messages: [{ role: 'user', content: prompt }], stream: true }),
      signal: caller.signal,
    });
    const reader = (res.body as ReadableStream<Uint8Array>).getReader();
    let seen = '';
    while (!seen.includes('First words')) seen += new TextDecoder().decode((await reader.read()).value);
    caller.abort();
    await freeway.logged(/499|caller/i).catch(() => undefined);
    release();
    upstream.handle((req, res) => openAIText(res, ANSWER, req));
    const [chat] = apis as [ApiCase];
    const calls = chatCalls(upstream);
    const again = await chat.send(freeway.url, prompt, { stream: true });
    expect(again.headers.get('x-freeway-cache')).to.equal('miss');
    expect(chatCalls(upstream)).to.equal(calls + 1);
  });

  it('embeddings: the second identical request is a hit with the same vectors, and other inputs are a miss', async () => {
    let embedCalls = 0;
    upstream.handle((req: SeenRequest, res) => {
      embedCalls += 1;
      const input = req.body?.input as string[];
      json(res, 200, { object: 'list', data: input.map((text, index) => ({ object: 'embedding', index, embedding: [text.length, index, 0.5] })), model: 'mistral-embed', usage: { prompt_tokens: 4, total_tokens: 4 } });
    });
    const send = (input: string[]): Promise<Sent> => post(freeway.url, '/v1/embeddings', { model: 'mistral/mistral-embed', input }, { 'X-Mistral-Key': testKeys.mistral as string });
    const input = [fresh('embed'), 'second text'];
    const first = await send(input);
    expect(first.status, first.body).to.equal(200);
    expect(first.headers.get('x-freeway-cache')).to.equal('miss');
    const second = await send(input);
    expect(second.headers.get('x-freeway-cache')).to.equal('hit');
    expect(second.headers.get('x-freeway-model')).to.equal('mistral/mistral-embed');
    expect(JSON.parse(second.body)).to.deep.equal(JSON.parse(first.body));
    expect(embedCalls).to.equal(1);
    expect((await send([input[0] as string])).headers.get('x-freeway-cache')).to.equal('miss');
    expect(embedCalls).to.equal(2);
  });
});
