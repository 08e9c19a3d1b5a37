/**
 * Fake providers on 127.0.0.1 for the attacks that need an upstream, and the
 * small client helpers they share. Not an attack itself (no `run`).
 */
import { randomBytes } from 'node:crypto';
import { Agent, request, type ServerResponse } from 'node:http';
import { keyHeaders } from '../../test/support/keys.ts';

export { startUpstream, type FakeUpstream } from '../../test/support/upstream.ts';
export { keyHeaders };

const chunk = (content: string): string =>
  `data: ${JSON.stringify({ id: 'x', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [{ index: 0, delta: { content }, finish_reason: null }] })}\n\n`;
const finish = `data: ${JSON.stringify({ id: 'x', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] })}\n\ndata: [DONE]\n\n`;

function drained(res: ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    const done = (): void => {
      res.off('drain', done).off('close', done);
      resolve();
    };
    res.on('drain', done).on('close', done);
  });
}

/** A stream of `count` chunks of `size` characters, as fast as the connection takes them, then a proper end. */
export function bulkStream(count: number, size: number) {
  return async (_req: unknown, res: ServerResponse): Promise<void> => {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    const piece = chunk('x'.repeat(size));
    for (let i = 0; i < count && !res.destroyed; i++) if (!res.write(piece)) await drained(res);
    if (!res.destroyed) res.end(finish);
  };
}

/** A stream that never ends: a chunk of `size` characters every `gapMs` until the caller hangs up. */
export function endlessDrip(gapMs: number, size: number) {
  return (_req: unknown, res: ServerResponse): Promise<void> =>
    new Promise((resolve) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      const piece = chunk('x'.repeat(size));
      const timer = setInterval(() => {
        if (res.destroyed) return;
        res.write(piece);
      }, gapMs);
      res.once('close', () => {
        clearInterval(timer);
        resolve();
      });
    });
}

/** `/health` for the given key headers: provider -> `state/consecutiveFailures`, e.g. `groq: healthy/0`. */
export async function healthLine(url: string, headers: Record<string, string>): Promise<string> {
  const response = await fetch(`${url}/health`, { headers });
  const body = (await response.json()) as { providers: Record<string, { state: string; consecutiveFailures: number }> };
  return Object.entries(body.providers)
    .map(([provider, entry]) => `${provider}: ${entry.state}/${entry.consecutiveFailures}`)
    .join(', ');
}

/** `length` random letters and digits: the unguessable part of a made-up key or prompt. */
export const alnum = (length: number): string => randomBytes(length).toString('base64').replace(/[^A-Za-z0-9]/g, '').padEnd(length, 'q').slice(0, length);

export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** The `p`-th percentile (0 to 100) of `values`, nearest rank; 0 for none. */
export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))] as number;
}

/** What Freeway answered one request: status (0 when it did not), time to the last byte, and the body. */
export interface Answer {
  status: number;
  ms: number;
  body: string;
  headers: Record<string, string | string[] | undefined>;
}

/** A keep-alive agent whose connections come from `localAddress` (127.0.0.0/8): a client of its own, as Freeway counts clients. */
export const agentFrom = (localAddress: string, sockets: number): Agent => new Agent({ keepAlive: true, maxSockets: sockets, localAddress });

/** One request to Freeway on 127.0.0.1 through `agent`, given up after 30 s. */
export function send(agent: Agent, port: number, method: string, path: string, headers: Record<string, string>, body?: string | Buffer): Promise<Answer> {
  const started = performance.now();
  return new Promise((resolve) => {
    const unanswered = (): void => resolve({ status: 0, ms: performance.now() - started, body: '', headers: {} });
    const req = request({ host: '127.0.0.1', port, method, path, headers, agent, timeout: 30_000 }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, ms: performance.now() - started, body: Buffer.concat(chunks).toString('utf8'), headers: res.headers }));
      res.on('error', unanswered);
    });
    req.on('timeout', () => req.destroy());
    req.on('error', unanswered);
    req.end(body);
  });
}

/** `n answered, p50 x ms, p99 y ms` of some answers. */
export function latencies(answers: readonly Answer[]): string {
  const ms = answers.map((answer) => answer.ms);
  return `${answers.length} answered, p50 ${Math.round(percentile(ms, 50))} ms, p99 ${Math.round(percentile(ms, 99))} ms`;
}

/**
 * An honest client on its own address (127.0.0.2): two loops of `free:auto` chat requests with
 * `key` from now until `stop`, which gives what it saw between `from` and `to` (performance.now()).
 */
export function honestChat(port: number, key: string) {
  const agent = agentFrom('127.0.0.2', 2);
  const chat = JSON.stringify({ model: 'free:auto', messages: [{ role: 'user', content: 'hi' }] });
  const headers = { 'content-type': 'application/json', 'x-groq-key': key };
  const answers: Array<Answer & { at: number }> = [];
  let running = true;
  const loops = [0, 1].map(async () => {
    while (running) {
      const at = performance.now();
      answers.push({ at, ...(await send(agent, port, 'POST', '/v1/chat/completions', headers, chat)) });
    }
  });
  return {
    async stop(): Promise<void> {
      running = false;
      await Promise.all(loops);
      agent.destroy();
    },
    /** The answers to the requests sent from `from` until `to`. */
    between: (from: number, to: number): Array<Answer & { at: number }> => answers.filter((answer) => answer.at >= from && answer.at < to),
    /** Every answer that was not a 200, as `count (statuses)`, or 0. */
    failed(): number | string {
      const failed = answers.filter((answer) => answer.status !== 200);
      return failed.length === 0 ? 0 : `${failed.length} (${[...new Set(failed.map((answer) => answer.status))].join(', ')})`;
    },
  };
}
