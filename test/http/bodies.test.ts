import { expect } from 'chai';
import { once } from 'node:events';
import { connect, type Socket } from 'node:net';
import OpenAI from 'openai';
import { loadConfig } from '../../server/config/index.ts';
import { createFreewayServer } from '../../server/http/server.ts';
import { providerPlugins, startFreeway, type RunningFreeway } from '../support/freeway.ts';
import { keyHeaders } from '../support/keys.ts';
import { openAIText, startUpstream, type FakeUpstream } from '../support/upstream.ts';

interface RawReply {
  readonly status: number;
  readonly head: string;
  readonly body: string;
  /** From the first byte written to the end of the answer. */
  readonly ms: number;
}

/** Raw HTTP on a socket: what a client too slow, too big or too broken for fetch sends. */
async function rawOpen(freeway: RunningFreeway): Promise<Socket> {
  const socket = connect(Number(new URL(freeway.url).port), '127.0.0.1');
  await once(socket, 'connect');
  return socket;
}

/** Reads the socket until the server closes it (or `ms` pass) and splits the answer. */
async function rawReply(socket: Socket, started: number, ms = 8_000): Promise<RawReply> {
  const chunks: Buffer[] = [];
  socket.on('data', (chunk: Buffer) => chunks.push(chunk));
  const timer = setTimeout(() => socket.destroy(new Error(`no answer within ${ms} ms`)), ms);
  await new Promise<void>((resolve) => {
    socket.once('close', () => resolve());
    socket.once('end', () => resolve());
  });
  clearTimeout(timer);
  const text = Buffer.concat(chunks).toString('utf8');
  const split = text.indexOf('\r\n\r\n');
  return { status: Number(text.slice(9, 12)), head: text.slice(0, split), body: text.slice(split + 4), ms: performance.now() - started };
}

function post(path: string, length: number | 'chunked', extra = ''): string {
  const framing = length === 'chunked' ? 'Transfer-Encoding: chunked' : `Content-Length: ${length}`;
  return `POST ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n${framing}\r\n${extra}\r\n`;
}

const chat = '/v1/chat/completions';

/**
 * Resolves once Freeway's next request has reached its body reader: the
 * middlewares before it finish within the microtasks of the request event.
 */
function bodyReadStarted(freeway: RunningFreeway): Promise<void> {
  return new Promise((resolve) => freeway.server.once('request', () => setImmediate(resolve)));
}

function expectJsonError(reply: RawReply, status: number, type: string, message: string): void {
  expect(reply.status, reply.head).to.equal(status);
  expect(reply.head).to.match(/\r\ncontent-type: application\/json/i);
  expect(JSON.parse(reply.body)).to.deep.equal({ error: { message, type, code: status } });
}

describe('request bodies and connections', function () {
  this.timeout(20_000);
  let freeway: RunningFreeway | undefined;
  const open: Socket[] = [];

  afterEach(async () => {
    for (const socket of open.splice(0)) socket.destroy();
    await freeway?.close();
    freeway = undefined;
  });

  async function socketTo(fw: RunningFreeway): Promise<Socket> {
    const socket = await rawOpen(fw);
    open.push(socket);
    return socket;
  }

  describe('BODY_TIMEOUT_MS', () => {
    it('a body that stops arriving gets a 408 JSON answer within BODY_TIMEOUT_MS, and the connection closes', async () => {
      freeway = await startFreeway({ env: { BODY_TIMEOUT_MS: '300' } });
      const socket = await socketTo(freeway);
      const started = performance.now();
      socket.write(`${post(chat, 100_000)}{"model":`);
      const reply = await rawReply(socket, started);
      expectJsonError(reply, 408, 'invalid_request_error', 'Request body not received within 0.3 s.');
      expect(reply.head).to.match(/\r\nconnection: close/i);
      expect(reply.ms).to.be.within(250, 3_000);
    });

    it('a chunked body that stops arriving, too', async () => {
      freeway = await startFreeway({ env: { BODY_TIMEOUT_MS: '300' } });
      const socket = await socketTo(freeway);
      const started = performance.now();
      socket.write(`${post(chat, 'chunked')}5\r\n{"mod\r\n`);
      expectJsonError(await rawReply(socket, started), 408, 'invalid_request_error', 'Request body not received within 0.3 s.');
    });

    it('a body that arrives in time is read as usual', async () => {
      freeway = await startFreeway({ env: { BODY_TIMEOUT_MS: '2000' } });
      const socket = await socketTo(freeway);
      const body = '{"model":"free:auto"}';
      const started = performance.now();
      socket.write(`${post(chat, Buffer.byteLength(body), 'Connection: close\r\n')}${body.slice(0, 5)}`);
      await new Promise((resolve) => setTimeout(resolve, 200));
      socket.write(body.slice(5));
      expectJsonError(await rawReply(socket, started), 400, 'invalid_request_error', 'Validation failed: messages: is required');
    });
  });

  describe('BODY_BUFFER_MAX', () => {
    const env = { BODY_LIMIT: '100kb', BODY_BUFFER_MAX: '150kb', BODY_TIMEOUT_MS: '1500' };
    const busy = 'Freeway is receiving too many request bodies at once. Retry shortly.';

    it('a body that does not fit beside those being received is a 503 with Retry-After; room again once they are done', async () => {
      freeway = await startFreeway({ env });
      // Holds 100 kB of the 150 kB budget: declared, barely sent.
      const holder = await socketTo(freeway);
      const held = performance.now();
      const reading = bodyReadStarted(freeway);
      holder.write(`${post(chat, 100 * 1024)}{"model"`);
      await reading;

      const refused = await socketTo(freeway);
      const body = JSON.stringify({ model: 'free:auto', messages: 'x'.repeat(60 * 1024) });
      refused.write(`${post(chat, Buffer.byteLength(body))}${body}`);
      const reply = await rawReply(refused, performance.now());
      expectJsonError(reply, 503, 'server_error', busy);
      expect(reply.head).to.match(/\r\nretry-after: 2\r\n/i);

      // A body that fits the 50 kB left is read.
      const small = await socketTo(freeway);
      const smallBody = JSON.stringify({ model: 'free:auto', messages: 'x'.repeat(40 * 1024) });
      small.write(`${post(chat, Buffer.byteLength(smallBody), 'Connection: close\r\n')}${smallBody}`);
      expectJsonError(await rawReply(small, performance.now()), 400, 'invalid_request_error', 'Validation failed: messages: must be array');

      // The holder times out and gives its room back.
      expectJsonError(await rawReply(holder, held), 408, 'invalid_request_error', 'Request body not received within 1.5 s.');
      const after = await socketTo(freeway);
      after.write(`${post(chat, Buffer.byteLength(body), 'Connection: close\r\n')}${body}`);
      expectJsonError(await rawReply(after, performance.now()), 400, 'invalid_request_error', 'Validation failed: messages: must be array');
    });

    it('chunked bodies count as they arrive', async () => {
      freeway = await startFreeway({ env });
      const holder = await socketTo(freeway);
      const reading = bodyReadStarted(freeway);
      holder.write(`${post(chat, 100 * 1024)}{"model"`);
      await reading;
      const chunked = await socketTo(freeway);
      chunked.write(post(chat, 'chunked'));
      const piece = 'x'.repeat(10 * 1024);
      for (let i = 0; i < 7; i++) chunked.write(`${piece.length.toString(16)}\r\n${piece}\r\n`);
      chunked.write('0\r\n\r\n');
      const reply = await rawReply(chunked, performance.now());
      expectJsonError(reply, 503, 'server_error', busy);
    });

    it('is a start-up setting: at least BODY_LIMIT', async () => {
      const plugins = await providerPlugins();
      expect(loadConfig({}, plugins).limits.bodyBufferMaxBytes).to.equal(256 * 1024 * 1024);
      expect(loadConfig({}, plugins).timeouts.bodyMs).to.equal(30_000);
      expect(() => loadConfig({ BODY_BUFFER_MAX: '10mb' }, plugins)).to.throw('BODY_BUFFER_MAX must be at least BODY_LIMIT (20mb)');
      expect(() => loadConfig({ BODY_BUFFER_MAX: 'lots' }, plugins)).to.throw('BODY_BUFFER_MAX must be a size such as 20mb, got "lots"');
      expect(() => loadConfig({ BODY_TIMEOUT_MS: '0' }, plugins)).to.throw('BODY_TIMEOUT_MS must be an integer >= 1, got "0"');
    });
  });

  describe('a body over BODY_LIMIT reaches the client as the 413', () => {
    let upstream: FakeUpstream;

    before(async () => {
      upstream = await startUpstream((req, res) => openAIText(res, 'Hello', req));
    });
    after(() => upstream.close());

    it('the official openai SDK gets a 413 APIError with the message, after ONE request, not a connection error and retries', async () => {
      freeway = await startFreeway({ env: { GROQ_BASE_URL: upstream.url } });
      let requests = 0;
      freeway.server.on('request', () => {
        requests += 1;
      });
      const client = new OpenAI({ baseURL: `${freeway.url}/v1`, apiKey: 'unused', defaultHeaders: keyHeaders('groq') });
      const content = 'x'.repeat(21 * 1024 * 1024);
      const error = await client.chat.completions.create({ model: 'free:auto', messages: [{ role: 'user', content }] }).then(
        () => undefined,
        (caught: unknown) => caught,
      );
      expect(error).to.be.instanceOf(OpenAI.APIError);
      expect(error).to.not.be.instanceOf(OpenAI.APIConnectionError);
      const apiError = error as InstanceType<typeof OpenAI.APIError>;
      expect(apiError.status).to.equal(413);
      expect(apiError.error).to.deep.equal({ message: 'Request body larger than 20mb.', type: 'invalid_request_error', code: 413 });
      expect(requests).to.equal(1);
      expect(upstream.requests).to.have.length(0);
    });

    it('a client that sends its whole body before reading (as httpx, under the Python SDK, does) gets the 413, not a reset', async () => {
      freeway = await startFreeway();
      const socket = await socketTo(freeway);
      let writeError: Error | undefined;
      socket.on('error', (error) => {
        writeError = error;
      });
      const started = performance.now();
      // More than the kernel's socket buffers hold, so the server must read it for the client to finish.
      const piece = Buffer.alloc(1024 * 1024, 'z');
      const pieces = 24;
      socket.write(post(chat, piece.length * pieces));
      for (let i = 0; i < pieces && !writeError; i++) {
        if (socket.write(piece)) continue;
        // The loser's listener is removed, so that 24 waits leave none behind.
        const settled = new AbortController();
        await Promise.race([once(socket, 'drain', { signal: settled.signal }), once(socket, 'close', { signal: settled.signal })]).finally(() => settled.abort());
      }
      const reply = await rawReply(socket, started);
      expect(writeError?.message).to.equal(undefined);
      expectJsonError(reply, 413, 'invalid_request_error', 'Request body larger than 20mb.');
      expect(reply.head).to.match(/\r\nconnection: close/i);
    });

    it('Expect: 100-continue (curl over 1 MB): a body over BODY_LIMIT is refused before the upload, without 100 Continue', async () => {
      freeway = await startFreeway();
      const socket = await socketTo(freeway);
      socket.write(post(chat, 25 * 1024 * 1024, 'Expect: 100-continue\r\n'));
      const reply = await rawReply(socket, performance.now());
      expect(reply.head).to.not.include('100 Continue');
      expectJsonError(reply, 413, 'invalid_request_error', 'Request body larger than 20mb.');
    });

    it('Expect: 100-continue: a body that fits gets 100 Continue, then its answer', async () => {
      freeway = await startFreeway();
      const socket = await socketTo(freeway);
      const body = '{"model":"free:auto"}';
      const started = performance.now();
      socket.write(post(chat, Buffer.byteLength(body), 'Expect: 100-continue\r\nConnection: close\r\n'));
      const [first] = (await once(socket, 'data')) as [Buffer];
      expect(first.toString('latin1')).to.equal('HTTP/1.1 100 Continue\r\n\r\n');
      socket.write(body);
      expectJsonError(await rawReply(socket, started), 400, 'invalid_request_error', 'Validation failed: messages: is required');
    });

    it('a declared length of more than twice BODY_LIMIT is answered at once, without reading', async () => {
      freeway = await startFreeway({ env: { BODY_LIMIT: '1kb' } });
      const socket = await socketTo(freeway);
      socket.write(post(chat, 2049));
      const reply = await rawReply(socket, performance.now());
      expectJsonError(reply, 413, 'invalid_request_error', 'Request body larger than 1kb.');
      expect(reply.head).to.match(/\r\nconnection: close/i);
    });

    it('a chunked body that grows past BODY_LIMIT is read to its end and then refused', async () => {
      freeway = await startFreeway({ env: { BODY_LIMIT: '1kb' } });
      const socket = await socketTo(freeway);
      socket.write(post(chat, 'chunked'));
      for (let i = 0; i < 3; i++) socket.write(`200\r\n${'y'.repeat(512)}\r\n`);
      socket.write('0\r\n\r\n');
      expectJsonError(await rawReply(socket, performance.now()), 413, 'invalid_request_error', 'Request body larger than 1kb.');
    });
  });

  describe("errors of Node's HTTP parser have the JSON error body", () => {
    it('431 for headers over 16 kB', async () => {
      freeway = await startFreeway();
      const socket = await socketTo(freeway);
      socket.write(`GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Big: ${'b'.repeat(20_000)}\r\n\r\n`);
      expectJsonError(await rawReply(socket, performance.now()), 431, 'invalid_request_error', 'Request headers too large.');
    });

    it('400 for a request that is not HTTP', async () => {
      freeway = await startFreeway();
      const socket = await socketTo(freeway);
      socket.write('HELLO THERE\r\n\r\n');
      expectJsonError(await rawReply(socket, performance.now()), 400, 'invalid_request_error', 'Malformed HTTP request.');
    });

    it('400 for a Content-Length that is not a number', async () => {
      freeway = await startFreeway();
      const socket = await socketTo(freeway);
      socket.write(`POST ${chat} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: twelve\r\n\r\n`);
      expectJsonError(await rawReply(socket, performance.now()), 400, 'invalid_request_error', 'Malformed HTTP request.');
    });

    it('408 for headers that never end (headersTimeout)', async () => {
      freeway = await startFreeway({ serverTimeouts: { headersTimeoutMs: 300, requestTimeoutMs: 400, checkEveryMs: 50 } });
      const socket = await socketTo(freeway);
      const started = performance.now();
      socket.write('GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n');
      const reply = await rawReply(socket, started);
      expectJsonError(reply, 408, 'invalid_request_error', 'Request not received in time.');
      expect(reply.ms).to.be.within(250, 3_000);
    });

    it("Freeway's server sets its timeouts: headers 20 s, request BODY_TIMEOUT_MS + 25 s, keep-alive 65 s", async () => {
      const config = loadConfig({}, await providerPlugins());
      const server = createFreewayServer(() => {}, config);
      expect(server.headersTimeout).to.equal(20_000);
      expect(server.requestTimeout).to.equal(55_000);
      expect(server.keepAliveTimeout).to.equal(65_000);
      expect(server.listenerCount('clientError')).to.equal(1);
    });
  });
  describe('MAX_CONNECTIONS', () => {
    /** Connections the server holds now. */
    const held = (fw: RunningFreeway): Promise<number> => new Promise((resolve, reject) => fw.server.getConnections((error, count) => (error ? reject(error) : resolve(count))));
    async function until(check: () => Promise<boolean>): Promise<void> {
      const deadline = Date.now() + 3_000;
      while (!(await check())) {
        if (Date.now() > deadline) throw new Error('condition not met within 3 s');
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    }

    it('past MAX_CONNECTIONS a new connection is closed as it arrives, counted in /metrics and logged; a freed slot serves again', async () => {
      freeway = await startFreeway({ env: { MAX_CONNECTIONS: '3' } });
      const fw = freeway;
      // Three callers that connect and send part of a request hold every slot.
      const holders = await Promise.all([1, 2, 3].map(() => socketTo(fw)));
      for (const socket of holders) socket.write('POST /v1/chat/completions HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Pad: ' + 'a'.repeat(8_000));
      await until(async () => (await held(fw)) === 3);

      const fourth = await socketTo(fw);
      fourth.write('GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n');
      const reply = await rawReply(fourth, performance.now(), 3_000);
      expect(reply.head, 'closed without an answer').to.equal('');
      expect(await held(fw)).to.equal(3);
      const line = JSON.parse(await fw.logged(/MAX_CONNECTIONS \(3\) connections are open/)) as { level: number };
      expect(line.level).to.equal(40);

      holders[0]?.destroy();
      await until(async () => (await held(fw)) === 2);
      const metrics = await fetch(`${fw.url}/metrics`);
      expect(metrics.status).to.equal(200);
      expect(await metrics.text()).to.match(/^freeway_connections_dropped_total 1$/m);
    });

    it('defaults to 10,000 connections per process, and must be a whole number from 1', async () => {
      const plugins = await providerPlugins();
      expect(createFreewayServer(() => {}, loadConfig({}, plugins)).maxConnections).to.equal(10_000);
      expect(createFreewayServer(() => {}, loadConfig({ MAX_CONNECTIONS: '250' }, plugins)).maxConnections).to.equal(250);
      for (const bad of ['0', '-1', '1.5', 'many']) {
        expect(() => loadConfig({ MAX_CONNECTIONS: bad }, plugins)).to.throw(`MAX_CONNECTIONS must be an integer >= 1, got "${bad}"`);
      }
    });
  });
});
