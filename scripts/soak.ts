/**
 * Soak test: N concurrent clients against Freeway for a bounded time, with
 * upstreams on 127.0.0.1 that fail at random. Counts every request's outcome
 * and exits non-zero if any request was lost (no response, a malformed
 * response, a crash) or if Freeway's memory keeps growing.
 *
 *   npm run soak                      # 50 clients, 60 s
 *   SOAK_CLIENTS=20 SOAK_SECONDS=15 npm run soak
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';

const clients = Number(process.env.SOAK_CLIENTS ?? 50);
const seconds = Number(process.env.SOAK_SECONDS ?? 60);
const providers = ['groq', 'cerebras', 'mistral', 'sambanova'] as const;
const keys: Record<(typeof providers)[number], string> = {
  groq: 'gsk_SoakKey0000000000000000000000',
  cerebras: 'csk-soakkey000000000000000000000',
  mistral: 'SoakKeyMistral000000000000000000',
  sambanova: 'SoakKeySambanova0000000000000000',
};

type Fault = 'ok' | 'slow' | 'rate_limited' | 'server_error' | 'hang' | 'close_mid_stream' | 'malformed' | 'html';
// Free tiers fail often, but mostly work: one attempt in four goes wrong here.
const faultWeights: Array<[Fault, number]> = [
  ['ok', 70],
  ['slow', 5],
  ['rate_limited', 8],
  ['server_error', 8],
  ['hang', 2],
  ['close_mid_stream', 3],
  ['malformed', 2],
  ['html', 2],
];
const totalWeight = faultWeights.reduce((sum, [, weight]) => sum + weight, 0);
function pickFault(): Fault {
  let roll = Math.random() * totalWeight;
  for (const [fault, weight] of faultWeights) {
    roll -= weight;
    if (roll < 0) return fault;
  }
  return 'ok';
}

const chunk = (content: string, finish: string | null = null) =>
  `data: ${JSON.stringify({ id: 'u', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [{ index: 0, delta: finish ? {} : { content }, finish_reason: finish }] })}\n\n`;
const usageChunk = `data: ${JSON.stringify({ id: 'u', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [], usage: { prompt_tokens: 5, completion_tokens: 5, total_tokens: 10 }, x_groq: { usage: { prompt_tokens: 5, completion_tokens: 5, total_tokens: 10 } } })}\n\n`;

function answer(res: ServerResponse, fault: Fault): void {
  switch (fault) {
    case 'ok':
    case 'slow': {
      const send = () => {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.end(chunk('Hello ') + chunk('from ') + chunk('soak') + chunk('', 'stop') + usageChunk + 'data: [DONE]\n\n');
      };
      if (fault === 'slow') setTimeout(send, 200 + Math.random() * 300);
      else send();
      return;
    }
    case 'rate_limited':
      res.writeHead(429, { 'content-type': 'application/json', 'retry-after': '1' });
      res.end('{"error":{"message":"Rate limit reached","type":"rate_limit"}}');
      return;
    case 'server_error':
      res.writeHead(503, { 'content-type': 'application/json' });
      res.end('{"error":{"message":"overloaded"}}');
      return;
    case 'hang':
      return;
    case 'close_mid_stream':
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(chunk('partial '), () => setTimeout(() => res.socket?.destroy(), 10));
      return;
    case 'malformed':
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.end('data: {"choices": [ not json\n\n');
      return;
    case 'html':
      res.writeHead(502, { 'content-type': 'text/html' });
      res.end('<!DOCTYPE html><html><body>Bad gateway</body></html>');
      return;
  }
}

async function startUpstream(): Promise<{ url: string; close: () => void }> {
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => answer(res, pickFault()));
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => {
      server.closeAllConnections();
      server.close();
    },
  };
}

function rssOf(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const match = /VmRSS:\s+(\d+) kB/.exec(status);
  return match ? Number(match[1]) * 1024 : 0;
}

type Outcome = 'ok' | 'ok_after_failover' | 'error_502' | 'stream_error_event' | 'lost';

function checkStream(text: string): 'ok' | 'stream_error_event' | undefined {
  const events = text.split('\n\n').filter(Boolean);
  if (events.length === 0 || !events.every((event) => event.startsWith('data: '))) return undefined;
  const last = events.at(-1) as string;
  if (last === 'data: [DONE]') {
    const first = JSON.parse(events[0]!.slice(6)) as { choices: Array<{ delta: { role?: string } }> };
    return first.choices[0]?.delta.role === 'assistant' ? 'ok' : undefined;
  }
  const error = JSON.parse(last.slice(6)) as { error?: { type?: string; message?: string } };
  return error.error?.type === 'freeway_provider_error' && error.error.message ? 'stream_error_event' : undefined;
}

async function main(): Promise<void> {
  const upstreams = await Promise.all(providers.map(() => startUpstream()));
  const env: Record<string, string> = {
    ...(process.env as Record<string, string>),
    PORT: '0',
    HOST: '127.0.0.1',
    LOG_LEVEL: 'warn',
    RATE_LIMIT_MAX: '100000000',
    FIRST_TOKEN_TIMEOUT_MS: '1000',
    STREAM_IDLE_TIMEOUT_MS: '1000',
    REQUEST_TIMEOUT_MS: '5000',
  };
  providers.forEach((provider, i) => (env[`${provider.toUpperCase()}_BASE_URL`] = upstreams[i]!.url));
  // Logs at info only for the start-up line that tells the port.
  const freeway = spawn(process.execPath, [fileURLToPath(new URL('../bin/freeway.mjs', import.meta.url))], {
    env: { ...env, LOG_LEVEL: 'info' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let crashed = false;
  freeway.on('exit', (code, signal) => {
    if (!stopping) {
      crashed = true;
      console.error(`Freeway exited during the soak: code ${code}, signal ${signal}`);
    }
  });
  let stopping = false;
  const url = await new Promise<string>((resolve) => {
    freeway.stdout.setEncoding('utf8');
    freeway.stdout.on('data', (text: string) => {
      const match = /listening on (http:\/\/[\d.]+:\d+)/.exec(text);
      if (match?.[1]) resolve(match[1]);
    });
  });
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  for (const provider of providers) headers[`X-${provider[0]!.toUpperCase()}${provider.slice(1)}-Key`] = keys[provider];

  const counts: Record<Outcome, number> = { ok: 0, ok_after_failover: 0, error_502: 0, stream_error_event: 0, lost: 0 };
  const latencies: number[] = [];
  const lostSamples: string[] = [];
  const rss: number[] = [];
  const sampler = setInterval(() => rss.push(rssOf(freeway.pid as number)), 250);
  const deadline = Date.now() + seconds * 1000;

  async function one(stream: boolean): Promise<Outcome> {
    const started = performance.now();
    let res: Response;
    let text: string;
    try {
      res = await fetch(`${url}/v1/chat/completions`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ model: 'free:auto', stream, messages: [{ role: 'user', content: 'soak' }] }),
        signal: AbortSignal.timeout(15_000),
      });
      text = await res.text();
    } catch (error) {
      lostSamples.push(`no response: ${(error as Error).message}`);
      return 'lost';
    }
    latencies.push(performance.now() - started);
    const failedOver = (res.headers.get('x-freeway-attempts') ?? '').includes(',');
    if (res.status === 200 && stream) {
      const verdict = checkStream(text);
      if (!verdict) {
        lostSamples.push(`malformed stream: ${text.slice(0, 200)}`);
        return 'lost';
      }
      if (verdict === 'stream_error_event') return verdict;
      return failedOver ? 'ok_after_failover' : 'ok';
    }
    try {
      const body = JSON.parse(text) as { choices?: Array<{ message?: { content?: string } }>; error?: { type?: string; code?: number } };
      if (res.status === 200 && body.choices?.[0]?.message?.content === 'Hello from soak') return failedOver ? 'ok_after_failover' : 'ok';
      if (res.status === 502 && body.error?.code === 502 && body.error.type?.startsWith('freeway_')) return 'error_502';
    } catch {
      // falls through to lost
    }
    lostSamples.push(`unexpected ${res.status}: ${text.slice(0, 200)}`);
    return 'lost';
  }

  async function client(): Promise<void> {
    while (Date.now() < deadline && !crashed) counts[await one(Math.random() < 0.5)] += 1;
  }
  console.log(`soak: ${clients} clients for ${seconds} s against ${url}, ${providers.length} upstreams with random faults`);
  await Promise.all(Array.from({ length: clients }, client));
  clearInterval(sampler);
  stopping = true;
  freeway.kill('SIGTERM');
  const [exitCode] = (await once(freeway, 'exit')) as [number | null];
  for (const upstream of upstreams) upstream.close();

  const total = Object.values(counts).reduce((a, b) => a + b, 0);
  latencies.sort((a, b) => a - b);
  const pct = (p: number) => latencies[Math.min(latencies.length - 1, Math.floor((p / 100) * latencies.length))] ?? 0;
  const mb = (bytes: number) => (bytes / 1024 / 1024).toFixed(1);
  const warm = rss.slice(Math.floor(rss.length * 0.2), Math.floor(rss.length * 0.4));
  const late = rss.slice(Math.floor(rss.length * 0.8));
  const warmRss = Math.max(...warm);
  const lateRss = Math.max(...late);
  const peak = Math.max(...rss);
  const growing = lateRss > warmRss * 1.5 + 50 * 1024 * 1024;
  const share = (n: number) => `${((100 * n) / Math.max(1, total)).toFixed(1)}%`;

  console.log(`requests:            ${total} (${(total / seconds).toFixed(0)}/s)`);
  console.log(`  ok first try:      ${counts.ok} (${share(counts.ok)})`);
  console.log(`  ok after failover: ${counts.ok_after_failover} (${share(counts.ok_after_failover)}) <- rescued by failover`);
  console.log(`  502, well-formed:  ${counts.error_502} (${share(counts.error_502)})`);
  console.log(`  stream error event:${counts.stream_error_event} (${share(counts.stream_error_event)})`);
  console.log(`  lost:              ${counts.lost}`);
  console.log(`latency p50/p99:     ${pct(50).toFixed(0)} ms / ${pct(99).toFixed(0)} ms`);
  console.log(`Freeway RSS:         peak ${mb(peak)} MB, warm ${mb(warmRss)} MB, late ${mb(lateRss)} MB${growing ? ' (GROWING)' : ''}`);
  console.log(`Freeway exit code:   ${exitCode}${crashed ? ' (crashed during the run)' : ''}`);
  for (const sample of lostSamples.slice(0, 5)) console.log(`  lost: ${sample}`);
  const failed = counts.lost > 0 || crashed || growing || exitCode !== 0;
  console.log(failed ? 'SOAK FAILED' : 'SOAK PASSED');
  process.exit(failed ? 1 : 0);
}

await main();
