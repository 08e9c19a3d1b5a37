/**
 * The floor of Freeway's design: a node:http server that does only what every
 * request through Freeway must do, nothing else. One cached AI SDK provider
 * model (the OpenAI-compatible package, as Freeway's Cerebras plugin uses) on
 * Freeway's own upstream fetch; every call streams upstream (as Freeway's do,
 * so that the first-token and idle timeouts bound them), and the text deltas
 * go back as chat-completion chunks, or collected into one answer for a caller
 * that did not stream. No Express, validation, routing, health, logging or
 * metrics: what this costs above the bare proxy is the price of parsing the
 * upstream answer into the AI SDK's parts.
 *
 * FLOOR_PARSER=lean replaces the AI SDK's parsing with a hand-written one
 * (split the server-sent events, JSON.parse each, take the text deltas; no
 * schema validation, one web stream instead of five): what a parser of
 * Freeway's own would cost, for comparison.
 *
 *   PROXY_PORT, UPSTREAM (http://127.0.0.1:PORT), FLOOR_PARSER (sdk | lean)
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { createUpstreamFetch } from '../../server/routing/http-client.ts';

const upstream = process.env.UPSTREAM ?? 'http://127.0.0.1:9000';
const fetch = createUpstreamFetch();
const model = createOpenAICompatible({ name: 'floor', baseURL: upstream, apiKey: 'floor', fetch, includeUsage: true }).chatModel('mock');
const lean = process.env.FLOOR_PARSER === 'lean';

type Prompt = Parameters<typeof model.doStream>[0]['prompt'];

/** The text deltas of the answer, through the AI SDK's provider model. */
async function* sdkDeltas(prompt: Prompt): AsyncGenerator<string> {
  const { stream } = await model.doStream({ prompt });
  const reader = stream.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return;
    if (value.type === 'text-delta') yield value.delta;
  }
}

/** The same call with a hand-written parse of the server-sent events. */
async function* leanDeltas(messages: ReadonlyArray<{ content: string }>): AsyncGenerator<string> {
  const res = await fetch(`${upstream}/chat/completions`, {
    method: 'POST',
    headers: { authorization: 'Bearer floor', 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'mock', messages: messages.map((m) => ({ role: 'user', content: m.content })), stream: true, stream_options: { include_usage: true } }),
  });
  const reader = (res.body as ReadableStream<Uint8Array>).getReader();
  const decoder = new TextDecoder();
  let buffered = '';
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return;
    buffered += decoder.decode(value, { stream: true });
    let end: number;
    while ((end = buffered.indexOf('\n\n')) !== -1) {
      const event = buffered.slice(0, end);
      buffered = buffered.slice(end + 2);
      if (!event.startsWith('data: ') || event === 'data: [DONE]') continue;
      const chunk = JSON.parse(event.slice(6)) as { choices?: Array<{ delta?: { content?: string } }> };
      const delta = chunk.choices?.[0]?.delta?.content;
      if (delta) yield delta;
    }
  }
}

const server = createServer((req, res) => {
  if (req.method !== 'POST') {
    res.end('floor');
    return;
  }
  let body = '';
  req.setEncoding('utf8');
  req.on('data', (piece: string) => (body += piece));
  req.on('end', async () => {
    try {
      const request = JSON.parse(body) as { stream?: boolean; messages: Array<{ content: string }> };
      const prompt = request.messages.map((m) => ({ role: 'user' as const, content: [{ type: 'text' as const, text: m.content }] }));
      if (request.stream) res.writeHead(200, { 'content-type': 'text/event-stream' });
      let text = '';
      for await (const delta of lean ? leanDeltas(request.messages) : sdkDeltas(prompt)) {
        if (request.stream) res.write(`data: ${JSON.stringify({ object: 'chat.completion.chunk', choices: [{ index: 0, delta: { content: delta } }] })}\n\n`);
        else text += delta;
      }
      if (request.stream) res.end('data: [DONE]\n\n');
      else res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ object: 'chat.completion', choices: [{ index: 0, message: { role: 'assistant', content: text }, finish_reason: 'stop' }] }));
    } catch {
      res.destroy();
    }
  });
});
server.keepAliveTimeout = 60_000;
server.listen(Number(process.env.PROXY_PORT ?? 0), '127.0.0.1', () => {
  process.stdout.write(`floor listening on ${(server.address() as AddressInfo).port}\n`);
});
// Exit rather than die on the bench's SIGTERM, so that `--cpu-prof` writes its profile (scripts/bench/profile-layers.ts).
process.on('SIGTERM', () => process.exit(0));
