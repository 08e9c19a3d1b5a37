import { Agent as HttpAgent, request as httpRequest, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import type { FetchFunction } from '../../providers/types.ts';

/** Bytes of an upstream answer queued for the AI SDK before the answer is paused: as much as Node's own stream buffer holds. */
const BODY_QUEUE_BYTES = 16 * 1024;
const bodyQueue = new ByteLengthQueuingStrategy({ highWaterMark: BODY_QUEUE_BYTES });

/**
 * An upstream answer's body as the web stream the AI SDK reads, with the answer's own
 * flow control: paused once BODY_QUEUE_BYTES wait to be read, so that the events of one
 * burst (a provider often writes several at once, each its own chunk) are read in one
 * go, and reach the caller in one write. Node's `Readable.toWeb` does
 * the same, but each body it wraps leaves about 4 kB that outlives V8's young
 * collections (a sequential loop of requests: 4.0 kB a request into the old
 * generation, against 0.01 kB with this one), and so collections that cost CPU.
 */
function webBody(res: IncomingMessage): ReadableStream<Uint8Array> {
  let settled = false;
  return new ReadableStream<Uint8Array>({
    start(controller) {
      res.on('data', (chunk: Buffer) => {
        if (settled) return;
        controller.enqueue(chunk);
        if ((controller.desiredSize ?? 0) <= 0) res.pause();
      });
      res.once('end', () => {
        if (settled) return;
        settled = true;
        controller.close();
      });
      // An answer cut short (its socket closed, or the call aborted) fails the read rather than ending it.
      res.once('error', (error) => {
        if (settled) return;
        settled = true;
        controller.error(error);
      });
      res.once('close', () => {
        if (settled) return;
        settled = true;
        controller.error(new TypeError('terminated', { cause: new Error('the upstream connection closed before the answer ended') }));
      });
    },
    pull() {
      res.resume();
    },
    cancel(reason) {
      settled = true;
      res.destroy(reason instanceof Error ? reason : undefined);
    },
  }, bodyQueue);
}

/**
 * A fetch for upstream calls on node:http with shared keep-alive agents.
 * The AI SDK only needs what it uses of fetch: method, headers, a string body
 * (FormData bodies go to the global fetch)
 * and an abort signal in; status, headers and a body stream out. Undici's
 * spec-complete fetch costs several times more CPU per call than this.
 */
export function createUpstreamFetch(): FetchFunction {
  const http = new HttpAgent({ keepAlive: true, maxSockets: Infinity, scheduling: 'lifo' });
  const https = new HttpsAgent({ keepAlive: true, maxSockets: Infinity, scheduling: 'lifo' });
  return ((input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    // A multipart upload (a transcription's FormData) is encoded by the platform's fetch; calls with text bodies stay here.
    const body = init?.body;
    if (input instanceof Request || (body != null && typeof body !== 'string' && !(body instanceof Uint8Array))) return globalThis.fetch(input, init);
    const url = typeof input === 'string' ? new URL(input) : input;
    const secure = url.protocol === 'https:';
    const signal = init?.signal ?? undefined;
    return new Promise<Response>((resolve, reject) => {
      if (signal?.aborted) {
        reject(signal.reason);
        return;
      }
      const req = (secure ? httpsRequest : httpRequest)(
        url,
        { method: init?.method ?? 'GET', headers: init?.headers as Record<string, string>, agent: secure ? https : http },
        (res: IncomingMessage) => {
          const headers = new Headers();
          const raw = res.rawHeaders;
          for (let i = 0; i < raw.length; i += 2) headers.append(raw[i] as string, raw[i + 1] as string);
          const status = res.statusCode ?? 502;
          const body = status === 204 || status === 304 ? null : webBody(res);
          resolve(new Response(body, { status, statusText: res.statusMessage, headers }));
        },
      );
      const onAbort = (): void => {
        req.destroy(signal?.reason instanceof Error ? signal.reason : new DOMException('aborted', 'AbortError'));
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      req.once('close', () => signal?.removeEventListener('abort', onAbort));
      req.on('error', (error) => reject(error.name === 'AbortError' ? error : new TypeError('fetch failed', { cause: error })));
      req.end(body as string | Uint8Array | undefined);
    });
  }) as FetchFunction;
}
