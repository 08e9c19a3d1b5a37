import { expect } from 'chai';
import { request } from 'node:http';
import { connect } from 'node:net';
import type { ServerResponse } from 'node:http';
import { startFreeway, type RunningFreeway } from '../support/freeway.ts';
import { keyHeaders } from '../support/keys.ts';
import { parseSse } from '../support/sse.ts';
import { openAISSE, startUpstream, usage, type FakeUpstream } from '../support/upstream.ts';

/**
 * How a stream reaches the caller: every part as soon as Freeway has it, and the parts that
 * arrive together in one write (a provider's read often holds several events), for each client
 * API that streams.
 */
const model = 'groq/llama-3.3-70b-versatile';
const words = ['one ', 'two ', 'three ', 'four ', 'five ', 'six ', 'seven ', 'eight'];

const apis = [
  { name: 'chat completions', path: '/v1/chat/completions', body: { model, stream: true, messages: [{ role: 'user', content: 'Count' }] } },
  { name: 'Responses', path: '/v1/responses', body: { model, stream: true, input: 'Count' } },
  { name: 'Messages', path: '/v1/messages', body: { model, stream: true, max_tokens: 64, messages: [{ role: 'user', content: 'Count' }] } },
] as const;

/** The upstream's chunk for one word: the first says the role. */
const wordChunk = (word: string, i: number): Record<string, unknown> => ({
  choices: [{ index: 0, delta: i === 0 ? { role: 'assistant', content: word } : { content: word }, finish_reason: null }],
});
const lastChunks = [{ choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] }, { choices: [], usage }];

const sseLine = (chunk: Record<string, unknown>): string => `data: ${JSON.stringify({ id: 'chatcmpl-upstream', object: 'chat.completion.chunk', created: 1, model: 'm', ...chunk })}\n\n`;

/** The text of a stream's events, whichever API wrote them. */
function streamedText(sse: string): string {
  let text = '';
  for (const event of parseSse(sse)) {
    if (event.data === '[DONE]') continue;
    const data = JSON.parse(event.data) as { choices?: Array<{ delta?: { content?: string } }>; type?: string; delta?: string | { type?: string; text?: string } };
    text += data.choices?.[0]?.delta?.content ?? '';
    if (data.type === 'response.output_text.delta' && typeof data.delta === 'string') text += data.delta;
    if (data.type === 'content_block_delta' && typeof data.delta === 'object' && data.delta.type === 'text_delta') text += data.delta.text ?? '';
  }
  return text;
}

/** The raw HTTP response to a POST, chunked framing and all, read from a plain socket until its last chunk. */
function rawPost(url: string, path: string, headers: Record<string, string>, body: unknown): Promise<string> {
  const { port } = new URL(url);
  const text = JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), '127.0.0.1');
    let raw = '';
    socket.setEncoding('latin1');
    socket.on('data', (piece: string) => {
      raw += piece;
      if (raw.endsWith('\r\n0\r\n\r\n')) {
        socket.destroy();
        resolve(raw);
      }
    });
    socket.on('error', reject);
    socket.on('close', () => resolve(raw));
    const lines = Object.entries({ ...headers, 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(text)) }).map(([name, value]) => `${name}: ${value}\r\n`);
    socket.write(`POST ${path} HTTP/1.1\r\nhost: 127.0.0.1\r\n${lines.join('')}\r\n${text}`);
  });
}

/** A chunked body's chunks, in order, the last (empty) one left out. */
function chunksOf(raw: string): string[] {
  let at = raw.indexOf('\r\n\r\n') + 4;
  const chunks: string[] = [];
  for (;;) {
    const end = raw.indexOf('\r\n', at);
    const size = Number.parseInt(raw.slice(at, end), 16);
    if (!(size > 0)) return chunks;
    chunks.push(raw.slice(end + 2, end + 2 + size));
    at = end + 2 + size + 2;
  }
}

describe('how a stream is written to the caller', () => {
  let groq: FakeUpstream;
  let freeway: RunningFreeway;
  const keys = keyHeaders('groq');

  before(async () => {
    groq = await startUpstream();
    freeway = await startFreeway({ env: { GROQ_BASE_URL: groq.url } });
  });
  after(async () => {
    await freeway.close();
    await groq.close();
  });

  for (const api of apis) {
    describe(api.name, () => {
      it('each part goes out as soon as it arrives: an upstream that sends a word only once the caller has seen the one before completes', async function () {
        this.timeout(20_000);
        // The caller's text so far, and who waits for it to reach a length.
        let seen = '';
        const waiters: Array<{ length: number; resolve: () => void }> = [];
        const seenUpTo = (length: number): Promise<void> => (seen.length >= length ? Promise.resolve() : new Promise((resolve) => waiters.push({ length, resolve })));
        groq.handle(async (_req, res: ServerResponse) => {
          res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
          let sent = '';
          for (const [i, word] of words.entries()) {
            res.write(sseLine(wordChunk(word, i)));
            sent += word;
            await seenUpTo(sent.length);
          }
          for (const chunk of lastChunks) res.write(sseLine(chunk));
          res.end('data: [DONE]\n\n');
        });
        const sse = await new Promise<string>((resolve, reject) => {
          const req = request(`${freeway.url}${api.path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...keys } }, (res) => {
            expect(res.statusCode).to.equal(200);
            let raw = '';
            res.setEncoding('utf8');
            res.on('data', (piece: string) => {
              raw += piece;
              seen = streamedText(raw.slice(0, raw.lastIndexOf('\n\n') + 2));
              for (const waiter of waiters.filter((w) => seen.length >= w.length)) {
                waiters.splice(waiters.indexOf(waiter), 1);
                waiter.resolve();
              }
            });
            res.on('end', () => resolve(raw));
          });
          req.on('error', reject);
          req.end(JSON.stringify(api.body));
        });
        expect(streamedText(sse)).to.equal(words.join(''));
      });

      it('parts that arrive together go out together: eight words sent in one write reach the caller in at most two chunks of the HTTP response', async () => {
        groq.handle((_req, res: ServerResponse) => openAISSE(res, [...words.map(wordChunk), ...lastChunks]));
        const raw = await rawPost(freeway.url, api.path, keys, api.body);
        expect(raw.startsWith('HTTP/1.1 200 OK\r\n'), raw.slice(0, 200)).to.equal(true);
        expect(raw.toLowerCase()).to.include('\r\ntransfer-encoding: chunked\r\n');
        const chunks = chunksOf(raw);
        expect(chunks.length, `chunk sizes ${chunks.map((chunk) => chunk.length).join(', ')}`).to.be.within(1, 2);
        expect(streamedText(Buffer.from(chunks.join(''), 'latin1').toString('utf8'))).to.equal(words.join(''));
      });
    });
  }
});
