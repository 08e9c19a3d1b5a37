/**
 * A cheap OpenAI-compatible upstream for benchmarks: every body is computed
 * once at start-up. Streams when the request body says `"stream":true`.
 *
 *   MOCK_PORT, MOCK_CHUNKS (stream chunks, default 20),
 *   MOCK_CHUNK_DELAY_MS (gap between chunks, default 0)
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

const port = Number(process.env.MOCK_PORT ?? 0);
const chunks = Number(process.env.MOCK_CHUNKS ?? 20);
const delayMs = Number(process.env.MOCK_CHUNK_DELAY_MS ?? 0);

const usage = { prompt_tokens: 12, completion_tokens: chunks, total_tokens: 12 + chunks };
const jsonBody = Buffer.from(
  JSON.stringify({
    id: 'chatcmpl-mock',
    object: 'chat.completion',
    created: 1700000000,
    model: 'mock',
    choices: [{ index: 0, message: { role: 'assistant', content: 'word '.repeat(chunks).trim() }, finish_reason: 'stop' }],
    usage,
  }),
);
const event = (body: object): string => `data: ${JSON.stringify({ id: 'chatcmpl-mock', object: 'chat.completion.chunk', created: 1700000000, model: 'mock', ...body })}\n\n`;
const sseParts: Buffer[] = [
  Buffer.from(event({ choices: [{ index: 0, delta: { role: 'assistant', content: '' }, finish_reason: null }] })),
  ...Array.from({ length: chunks }, () => Buffer.from(event({ choices: [{ index: 0, delta: { content: 'word ' }, finish_reason: null }] }))),
  Buffer.from(event({ choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] }) + event({ choices: [], usage }) + 'data: [DONE]\n\n'),
];
const sseWhole = Buffer.concat(sseParts);
const sseHeaders = { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' };
const jsonHeaders = { 'content-type': 'application/json', 'content-length': String(jsonBody.length) };

const server = createServer((req, res) => {
  let streaming = false;
  req.on('data', (data: Buffer) => {
    if (!streaming && data.includes('"stream":true')) streaming = true;
  });
  req.on('end', () => {
    if (!streaming) {
      res.writeHead(200, jsonHeaders);
      res.end(jsonBody);
      return;
    }
    res.writeHead(200, sseHeaders);
    if (delayMs <= 0) {
      res.end(sseWhole);
      return;
    }
    let i = 0;
    const next = (): void => {
      if (res.destroyed) return;
      const part = sseParts[i++];
      if (!part) {
        res.end();
        return;
      }
      res.write(part);
      setTimeout(next, delayMs);
    };
    next();
  });
});
server.keepAliveTimeout = 60_000;
server.listen(port, '127.0.0.1', () => {
  process.stdout.write(`mock listening on ${(server.address() as AddressInfo).port}\n`);
});
