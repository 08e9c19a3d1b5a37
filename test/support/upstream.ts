import './models-live-off.ts';
import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

/** A request as the fake upstream saw it. */
export interface SeenRequest {
  readonly method: string;
  readonly path: string;
  readonly headers: IncomingMessage['headers'];
  readonly body: Record<string, unknown> | undefined;
}

export type UpstreamHandler = (req: SeenRequest, res: ServerResponse) => void | Promise<void>;

export interface FakeUpstream {
  /** `http://127.0.0.1:<port>` */
  readonly url: string;
  readonly requests: SeenRequest[];
  /** Replaces how the upstream answers from now on. */
  handle(handler: UpstreamHandler): void;
  close(): Promise<void>;
}

/** A real HTTP server on 127.0.0.1 that plays a provider; providers reach it through `<ID>_BASE_URL`. */
export async function startUpstream(handler: UpstreamHandler = (_req, res) => openAIText(res, 'Hello')): Promise<FakeUpstream> {
  let current = handler;
  const requests: SeenRequest[] = [];
  const sockets = new Set<Socket>();
  const server: Server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const text = Buffer.concat(chunks).toString('utf8');
    let body: Record<string, unknown> | undefined;
    try {
      body = text ? (JSON.parse(text) as Record<string, unknown>) : undefined;
    } catch {
      body = undefined;
    }
    const seen: SeenRequest = { method: req.method ?? '', path: req.url ?? '', headers: req.headers, body };
    requests.push(seen);
    try {
      await current(seen, res);
    } catch {
      res.destroy();
    }
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    handle(next) {
      current = next;
    },
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

export function json(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), ...headers });
  res.end(text);
}

export const usage = { prompt_tokens: 7, completion_tokens: 3, total_tokens: 10 };

/** An OpenAI-compatible answer: SSE when the request asked to stream (Freeway always does), JSON otherwise. */
export function openAIText(res: ServerResponse, text: string, request?: SeenRequest, headers: Record<string, string> = {}): void {
  if (request && request.body?.stream !== true) {
    json(res, 200, {
      id: 'chatcmpl-upstream',
      object: 'chat.completion',
      created: 1,
      model: String(request.body?.model ?? 'm'),
      choices: [{ index: 0, message: { role: 'assistant', content: text }, finish_reason: 'stop' }],
      usage,
    }, headers);
    return;
  }
  const words = text.split(/(?<= )/);
  openAISSE(res, [
    ...words.map((word, i) => ({ choices: [{ index: 0, delta: i === 0 ? { role: 'assistant', content: word } : { content: word }, finish_reason: null }] })),
    { choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] },
    { choices: [], usage, x_groq: { usage } },
  ], true, headers);
}

/** Writes OpenAI chat.completion.chunk events (id/object/model are filled in) and `[DONE]`. */
export function openAISSE(res: ServerResponse, chunks: readonly Record<string, unknown>[], done = true, headers: Record<string, string> = {}): void {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', ...headers });
  for (const chunk of chunks) {
    res.write(`data: ${JSON.stringify({ id: 'chatcmpl-upstream', object: 'chat.completion.chunk', created: 1, model: 'm', ...chunk })}\n\n`);
  }
  if (done) res.write('data: [DONE]\n\n');
  res.end();
}

/** An OpenAI-compatible streamed tool call, in two argument pieces. */
export function openAIToolCall(res: ServerResponse, name: string, args: string): void {
  const half = Math.floor(args.length / 2);
  openAISSE(res, [
    { choices: [{ index: 0, delta: { role: 'assistant', tool_calls: [{ index: 0, id: 'call_1', type: 'function', function: { name, arguments: args.slice(0, half) } }] }, finish_reason: null }] },
    { choices: [{ index: 0, delta: { tool_calls: [{ index: 0, function: { arguments: args.slice(half) } }] }, finish_reason: null }] },
    { choices: [{ index: 0, delta: {}, finish_reason: 'tool_calls' }], usage },
  ]);
}

/** Gemini's streamGenerateContent?alt=sse answer. */
export function geminiSSE(res: ServerResponse, text: string): void {
  res.writeHead(200, { 'content-type': 'text/event-stream' });
  const words = text.split(/(?<= )/);
  words.forEach((word, i) => {
    const last = i === words.length - 1;
    res.write(
      `data: ${JSON.stringify({
        candidates: [{ content: { role: 'model', parts: [{ text: word }] }, ...(last ? { finishReason: 'STOP' } : {}), index: 0 }],
        ...(last ? { usageMetadata: { promptTokenCount: 7, candidatesTokenCount: 3, totalTokenCount: 10 } } : {}),
      })}\r\n\r\n`,
    );
  });
  res.end();
}

/** An OpenAI-style error body. */
export function openAIError(res: ServerResponse, status: number, message: string, headers: Record<string, string> = {}): void {
  json(res, status, { error: { message, type: 'error', code: status } }, headers);
}
