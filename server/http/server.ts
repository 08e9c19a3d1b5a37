import cluster from 'node:cluster';
import { createServer, IncomingMessage, ServerResponse, STATUS_CODES, type RequestListener, type Server } from 'node:http';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import type { Config } from '../config/index.ts';
import { errorBody, freewayError, type HttpError } from '../core/errors.ts';

/**
 * How long Node's HTTP server waits for a client, besides BODY_TIMEOUT_MS
 * (json-body.ts), which answers a slow body with Freeway's own 408 first.
 */
export interface ServerTimeouts {
  /** Request line and headers (Node's default is 60 s). */
  readonly headersTimeoutMs: number;
  /** The whole request, headers and body: a backstop just after BODY_TIMEOUT_MS. */
  readonly requestTimeoutMs: number;
  /** An idle keep-alive connection; above the 60 s idle timeout of common load balancers, so they close first. */
  readonly keepAliveTimeoutMs: number;
  /** How often Node checks the two timeouts above (its default of 30 s would let them run 30 s late). */
  readonly checkEveryMs: number;
}

export function serverTimeouts(config: { readonly timeouts: Pick<Config['timeouts'], 'bodyMs'> }): ServerTimeouts {
  const headersTimeoutMs = 20_000;
  return {
    headersTimeoutMs,
    requestTimeoutMs: headersTimeoutMs + config.timeouts.bodyMs + 5_000,
    keepAliveTimeoutMs: 65_000,
    checkEveryMs: 1_000,
  };
}

/** What each error of Node's HTTP parser means for the client. */
function parserError(code: string | undefined): HttpError {
  switch (code) {
    case 'HPE_HEADER_OVERFLOW':
      return freewayError('FREEWAY_HEADERS_TOO_LARGE');
    case 'HPE_CHUNK_EXTENSIONS_OVERFLOW':
      return freewayError('FREEWAY_CHUNK_EXTENSIONS_TOO_LARGE');
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return freewayError('FREEWAY_REQUEST_TIMEOUT');
    default:
      return freewayError('FREEWAY_MALFORMED_HTTP');
  }
}

/**
 * Node answers what its parser refuses (431, 400, 408) with an empty body;
 * this answers with the OpenAI error body every other error has. As Node
 * does, it writes only when no response of that connection has started.
 */
function answerClientError() {
  return (error: NodeJS.ErrnoException, socket: Duplex): void => {
    const current = (socket as Duplex & { _httpMessage?: ServerResponse | null })._httpMessage;
    if (error.code === 'ECONNRESET' || !socket.writable || current?.headersSent) {
      socket.destroy();
      return;
    }
    const { status, type, message } = parserError(error.code);
    const body = JSON.stringify(errorBody(status, type, message));
    socket.end(
      `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: application/json; charset=utf-8\r\n` +
        `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
    // A client that does not read its answer does not keep the socket.
    setTimeout(() => socket.destroy(), 1_000).unref();
  };
}

/**
 * Past `max` open connections, each new one is closed as it arrives, before a
 * byte is read (as nginx does past worker_connections): a connection costs 10
 * to 14 KB even idle, and a caller could otherwise open as many as the file
 * limit allows. Alone, Node's own maxConnections does it before making a socket
 * of it. A cluster worker must not use that: it hands the connection back to the
 * primary, which offers it to a worker again at once, for ever, at full CPU,
 * holding every connection past the cap. A worker takes it and closes it.
 */
function capConnections(server: Server, max: number, onDrop: () => void): void {
  if (!cluster.isWorker) {
    server.maxConnections = max;
    server.on('drop', onDrop);
    return;
  }
  let open = 0;
  server.on('connection', (socket: Socket) => {
    if (open >= max) {
      socket.destroy();
      onDrop();
      return;
    }
    open += 1;
    socket.once('close', () => (open -= 1));
  });
}

/** A constructor of `Base`'s objects whose prototype is `prototype` from the start. */
function bornWith<T extends object>(Base: new (first: never, second: never) => T, prototype: object): new (first: never, second: never) => T {
  // Reflect.construct with Born as the new target keeps Base's object layout (its fields in the object) with Born's prototype.
  function Born(first: never, second: never): T {
    return Reflect.construct(Base, [first, second], Born) as T;
  }
  Born.prototype = prototype;
  return Born as unknown as new (first: never, second: never) => T;
}

/**
 * The request and response classes for an Express app: objects born with the app's own
 * prototypes. Express gives each request and response its prototypes on arrival
 * (`Object.setPrototypeOf`), which moves the object to another hidden class and leaves
 * Node's HTTP code and Express's seeing two shapes of each; born with them, the call
 * changes nothing and every request has one shape throughout.
 */
function messageClasses(app: RequestListener): { IncomingMessage?: typeof IncomingMessage; ServerResponse?: typeof ServerResponse } {
  const { request, response } = app as Partial<Record<'request' | 'response', unknown>>;
  if (!(request instanceof IncomingMessage) || !(response instanceof ServerResponse)) return {};
  return { IncomingMessage: bornWith(IncomingMessage, request) as unknown as typeof IncomingMessage, ServerResponse: bornWith(ServerResponse, response) as unknown as typeof ServerResponse };
}

/** Freeway's HTTP server, the same for `npm start` and the tests: timeouts, parser errors and the connection cap (MAX_CONNECTIONS) included. */
export function createFreewayServer(
  app: RequestListener,
  config: Pick<Config, 'timeouts' | 'limits'>,
  overrides: Partial<ServerTimeouts> = {},
  onDrop: () => void = () => {},
): Server {
  const timeouts = { ...serverTimeouts(config), ...overrides };
  const server = createServer(
    {
      headersTimeout: timeouts.headersTimeoutMs,
      requestTimeout: timeouts.requestTimeoutMs,
      connectionsCheckingInterval: timeouts.checkEveryMs,
      ...messageClasses(app),
    },
    app,
  );
  server.keepAliveTimeout = timeouts.keepAliveTimeoutMs;
  capConnections(server, config.limits.maxConnections, onDrop);
  server.on('clientError', answerClientError());
  // Node would send `100 Continue` to every Expect: 100-continue request; the body
  // reader sends it only for a body it will read, and refuses the others before upload.
  server.on('checkContinue', (req, res) => server.emit('request', req, res));
  return server;
}
