/**
 * What the benchmark scripts share: where they write, the mock upstream's
 * request, pinning to a CPU, processes on free 127.0.0.1 ports, and what
 * /proc says of a process (CPU ticks, RSS).
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

export { freePort } from '../../test/support/process.ts';

export const root = join(dirname(fileURLToPath(import.meta.url)), '../..');
export const outDir = join(root, '.bench');

/**
 * The Node flags the `freeway` command of the checkout in `dir` gives its server (that
 * checkout's bin/node-flags.mjs; none before it had one), so that comparing two builds
 * also compares their flags.
 */
export async function checkoutNodeFlags(dir: string, env: Readonly<Record<string, string | undefined>>): Promise<string[]> {
  const own = join(dir, 'bin/node-flags.mjs');
  if (!existsSync(own)) return [];
  const flags = (await import(pathToFileURL(own).href)) as { serverNodeFlags(execArgv: readonly string[], env: Readonly<Record<string, string | undefined>>): string[] };
  return flags.serverNodeFlags([], env);
}
mkdirSync(outDir, { recursive: true });

/** The key of every benchmark request (Cerebras-shaped; the mock upstream ignores it). */
export const key = 'csk-benchkey0000000000000000000000';
export const model = 'free:auto';

export function commandExists(name: string): boolean {
  try {
    execFileSync('sh', ['-c', `command -v ${name}`], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

const hasTaskset = commandExists('taskset');

/** `command args` run on CPU `cpu` when taskset exists. */
export function pinned(cpu: string, command: string, args: string[]): [string, string[]] {
  return hasTaskset ? ['taskset', ['-c', cpu, command, ...args]] : [command, args];
}

export const pinning = hasTaskset;

export async function waitForHttp(url: string, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    try {
      await (await fetch(url, { method: 'GET' })).arrayBuffer();
      return;
    } catch {
      await new Promise((r) => setTimeout(r, 5));
    }
  }
  throw new Error(`${url} did not come up`);
}

/** User plus system CPU ticks a process has used (Linux /proc). */
export function cpuTicks(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return Number(fields[11]) + Number(fields[12]);
}

export function rssBytes(pid: number): number {
  const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return match ? Number(match[1]) * 1024 : 0;
}

export const ticksPerSecond = Number(execFileSync('getconf', ['CLK_TCK']).toString().trim()) || 100;

/** A chat completion of the benchmark, streaming or not. */
export function body(stream: boolean): string {
  return JSON.stringify({ model, stream, messages: [{ role: 'user', content: 'Benchmark me, please.' }], max_tokens: 64 });
}

/** A wrk script that POSTs the benchmark's completion, with the key header, or `headers` instead (another gateway's). */
export function wrkScript(stream: boolean, headers: Readonly<Record<string, string>> = { 'X-Cerebras-Key': key }): string {
  const lines = Object.entries(headers).map(([name, value]) => `wrk.headers["${name}"] = "${value}"\n`);
  return `wrk.method = "POST"\nwrk.body = '${body(stream)}'\nwrk.headers["Content-Type"] = "application/json"\n${lines.join('')}`;
}

/** The headers that send the benchmark's completion through Portkey's gateway (scripts/bench/portkey.ts) to the mock at `upstream`. */
export function portkeyHeaders(upstream: string): Record<string, string> {
  return { 'x-portkey-provider': 'openai', 'x-portkey-custom-host': upstream, Authorization: `Bearer ${key}` };
}

export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? (sorted[mid] as number) : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
}

/** One streamed completion of the benchmark; resolves true when it ended with `[DONE]`, false on any failure. */
function streamOnce(url: string, agent: Agent, payload: string): Promise<boolean> {
  return new Promise<boolean>((resolve) => {
    const req = request(`${url}/v1/chat/completions`, { method: 'POST', agent, headers: { 'content-type': 'application/json', 'x-cerebras-key': key } }, (res) => {
      let tail = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (tail = (tail + chunk).slice(-16)));
      res.on('end', () => resolve(res.statusCode === 200 && tail.endsWith('data: [DONE]\n\n')));
    });
    req.on('error', () => resolve(false));
    req.end(payload);
  });
}

/** Opens `count` streams at once against a slow upstream; returns the target's peak RSS. */
export async function peakRssUnderStreams(target: { readonly pid: number; readonly url: string }, count: number): Promise<{ peak: number; completed: number; failed: number }> {
  const agent = new Agent({ keepAlive: false, maxSockets: Infinity });
  let peak = rssBytes(target.pid);
  const sampler = setInterval(() => (peak = Math.max(peak, rssBytes(target.pid))), 20);
  const payload = body(true);
  const results = await Promise.all(Array.from({ length: count }, () => streamOnce(target.url, agent, payload)));
  clearInterval(sampler);
  peak = Math.max(peak, rssBytes(target.pid));
  agent.destroy();
  const completed = results.filter(Boolean).length;
  return { peak, completed, failed: count - completed };
}

/**
 * Keeps `count` streams open at once for `ms`: each connection starts its next stream
 * when one ends. Returns how many streams completed (ended with `[DONE]`) within that time.
 */
export async function slowStreams(url: string, count: number, ms: number): Promise<{ completed: number; failed: number }> {
  const agent = new Agent({ keepAlive: true, maxSockets: Infinity });
  const payload = body(true);
  const until = Date.now() + ms;
  let completed = 0;
  let failed = 0;
  await Promise.all(
    Array.from({ length: count }, async () => {
      while (Date.now() < until) {
        if (!(await streamOnce(url, agent, payload))) failed += 1;
        // Only streams done within the window count.
        else if (Date.now() <= until) completed += 1;
      }
    }),
  );
  agent.destroy();
  return { completed, failed };
}
