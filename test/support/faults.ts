import type { ServerResponse } from 'node:http';
import { openAIError, openAISSE, openAIText, usage, type SeenRequest, type UpstreamHandler } from './upstream.ts';

/**
 * The ways a free tier misbehaves, as handlers for the fake upstream. Each one
 * is what a real provider has been seen to do.
 */
const chunk = (content: string) => ({ choices: [{ index: 0, delta: { content }, finish_reason: null }] });

function startSSE(res: ServerResponse): void {
  res.writeHead(200, { 'content-type': 'text/event-stream' });
}

export const faults = {
  ok: (text = 'Hello from upstream'): UpstreamHandler => (req: SeenRequest, res) => openAIText(res, text, req),
  rateLimited: (retryAfterSeconds?: number): UpstreamHandler => (_req, res) =>
    openAIError(res, 429, 'Rate limit reached for requests', retryAfterSeconds === undefined ? {} : { 'retry-after': String(retryAfterSeconds) }),
  rateLimitedWithBodyHint: (seconds: number): UpstreamHandler => (_req, res) =>
    openAIError(res, 429, `Rate limit reached. Please try again in ${seconds}s.`),
  serverError: (status = 500): UpstreamHandler => (_req, res) => openAIError(res, status, 'Internal error, please retry'),
  unauthorized: (status = 401): UpstreamHandler => (_req, res) => openAIError(res, status, 'Invalid API key provided'),
  badRequest: (message: string): UpstreamHandler => (_req, res) => openAIError(res, 400, message),
  notFound: (): UpstreamHandler => (_req, res) => openAIError(res, 404, 'The model does not exist'),
  /** Accepts the request and never answers. */
  hangBeforeHeaders: (): UpstreamHandler => () => new Promise<void>(() => {}),
  /** Sends a stream's headers at once, then nothing: a provider that queues the work after answering. */
  hangAfterHeaders: (): UpstreamHandler => (_req, res) => {
    startSSE(res);
    res.flushHeaders();
  },
  /** Sends headers and one chunk, then goes silent with the socket open. */
  hangMidStream: (): UpstreamHandler => (_req, res) => {
    startSSE(res);
    res.write(`data: ${JSON.stringify({ id: 'x', object: 'chat.completion.chunk', created: 1, model: 'm', ...chunk('partial ') })}\n\n`);
  },
  /** Sends headers and one chunk, then drops the connection. */
  closeMidStream: (): UpstreamHandler => (_req, res) => {
    startSSE(res);
    res.write(`data: ${JSON.stringify({ id: 'x', object: 'chat.completion.chunk', created: 1, model: 'm', ...chunk('partial ') })}\n\n`, () => {
      setTimeout(() => res.socket?.destroy(), 20);
    });
  },
  /** A stream whose events are not JSON. */
  malformedJSON: (): UpstreamHandler => (_req, res) => {
    startSSE(res);
    res.end('data: {"choices": [ this is not json\n\n');
  },
  /** A body that is not server-sent events at all. */
  malformedSSE: (): UpstreamHandler => (_req, res) => {
    startSSE(res);
    res.end('hello, I am not an event stream\r\nneither am I\n');
  },
  /** 200 with JSON where a stream was asked for. */
  jsonInsteadOfStream: (): UpstreamHandler => (_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ choices: [{ index: 0, message: { role: 'assistant', content: 'hi' }, finish_reason: 'stop' }] }));
  },
  /** A proxy's HTML error page. */
  htmlErrorPage: (status = 502): UpstreamHandler => (_req, res) => {
    res.writeHead(status, { 'content-type': 'text/html' });
    res.end('<!DOCTYPE html><html><head><title>502 Bad Gateway</title></head><body><h1>Bad Gateway</h1></body></html>');
  },
  /** A stream that ends cleanly but is cut: no finish_reason, no [DONE]. */
  truncated: (): UpstreamHandler => (_req, res) => {
    openAISSE(res, [chunk('cut ')], false);
  },
  /** An error body of several megabytes. */
  hugeErrorBody: (megabytes = 5): UpstreamHandler => (_req, res) =>
    openAIError(res, 500, 'x'.repeat(megabytes * 1024 * 1024)),
  /** Answers correctly after a delay. */
  slow: (delayMs: number, text = 'slow but fine'): UpstreamHandler => (req, res) =>
    new Promise<void>((resolve) => {
      setTimeout(() => {
        openAIText(res, text, req);
        resolve();
      }, delayMs);
    }),
  /** Streams `count` chunks, `gapMs` apart. */
  trickle: (count: number, gapMs: number): UpstreamHandler => (_req, res) =>
    new Promise<void>((resolve) => {
      startSSE(res);
      let sent = 0;
      const timer = setInterval(() => {
        if (res.destroyed) {
          clearInterval(timer);
          resolve();
          return;
        }
        if (sent < count) {
          res.write(`data: ${JSON.stringify({ id: 'x', object: 'chat.completion.chunk', created: 1, model: 'm', ...chunk(`t${sent} `) })}\n\n`);
          sent += 1;
          return;
        }
        clearInterval(timer);
        res.end(`data: ${JSON.stringify({ id: 'x', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [{ index: 0, delta: {}, finish_reason: 'stop' }], usage })}\n\ndata: [DONE]\n\n`);
        resolve();
      }, gapMs);
    }),
} as const;
