/**
 * Freeway's cost per request, against the thinnest Node proxy on the same
 * machine and the same mock upstream. Everything listens on 127.0.0.1.
 *
 * A third target, the floor (scripts/bench/sdk-floor.ts), makes only the
 * upstream call and parses its answer into the AI SDK's parts, as every
 * request through Freeway must: what it costs above the bare proxy is the
 * price of the design, and what Freeway costs above it is Freeway's own.
 * FLOOR_PARSER=lean gives the floor a hand-written parser instead.
 *
 * The proxy under test runs on CPU 0; the mock upstream and the load
 * generator share CPU 1 (taskset), and targets alternate (bare, Freeway,
 * bare, Freeway) so that drift of the machine cancels out.
 *
 *   npm run bench
 *   BENCH_SECONDS=5 BENCH_ROUNDS=1 npm run bench     # quicker
 *   BENCH_BEFORE=/path/to/other/checkout npm run bench  # also measures that checkout's build (dist/), alternating
 *   FLOOR_PARSER=lean npm run bench                      # the floor with a hand-written parser
 *   BENCH_PORTKEY=0 npm run bench                         # without Portkey's gateway
 *   BENCH_TABLE_ONLY=1 npm run bench                      # the request rows and their targets only
 *   BENCH_WARMUP=0 npm run bench                          # rows from cold servers (default: 30 s of load on each first)
 *   BENCH_MEMORY_REDUCER=1 npm run bench                  # rows with V8's memory reducer on (default: off for the rows' targets)
 *
 * Before the first row every target serves BENCH_WARMUP seconds of load, half
 * without streaming at 16 connections and half streaming at 64, one target at
 * a time: a server's cost per request is what it costs once V8 has compiled
 * its hot code, and Freeway's larger code takes longer to get there than the
 * floor's (see docs/performance.md), which a row measured in a target's first
 * seconds would count against it.
 *
 * The targets of the CPU rows run with V8's memory reducer off
 * (`--no-memory-reducer`, all alike): a target waits while the others are
 * measured, and after some 8 s without allocation the reducer's collections
 * throw away the code V8 optimized (the maps it embeds die with the last
 * object of their shape), so each row would measure re-optimization rather
 * than a server under steady load, which never triggers the reducer.
 *
 * Portkey's gateway (`@portkey-ai/gateway`, scripts/bench/portkey.ts), the
 * peer a user might run instead, is a target of the request rows too: on the
 * same core and the same mock, told by headers to call it as an OpenAI host.
 *
 * BENCH_BEFORE names a directory holding another built checkout of Freeway
 * (its `dist/` and `node_modules/`, e.g. `git worktree add` then `npm ci &&
 * npm run build`): it is measured as a third target in the same run, so the
 * report shows before and after side by side.
 *
 * Load generator: wrk if installed (apt-get install wrk), else autocannon via npx.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync, writeFileSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { cpus, loadavg, totalmem } from 'node:os';
import { join } from 'node:path';
import { serverNodeFlags } from '../bin/node-flags.mjs';
import {
  body,
  checkoutNodeFlags,
  commandExists,
  cpuTicks,
  freePort,
  key,
  median,
  model,
  outDir,
  peakRssUnderStreams,
  pinned,
  pinning,
  portkeyHeaders,
  root,
  rssBytes,
  slowStreams,
  ticksPerSecond,
  waitForHttp,
  wrkScript,
} from './bench/harness.ts';


const seconds = Number(process.env.BENCH_SECONDS ?? 8);
const rounds = Number(process.env.BENCH_ROUNDS ?? 2);
/** Seconds of load each target serves before the first row, half non-streaming at 16 connections, half streaming at 64. */
const warmupSeconds = Number(process.env.BENCH_WARMUP ?? 30);
/** Node flags the CPU rows' targets get besides their own: the memory reducer off, unless BENCH_MEMORY_REDUCER=1. */
const steadyFlags = process.env.BENCH_MEMORY_REDUCER === '1' ? [] : ['--no-memory-reducer'];
/** The Node flags of a CPU row's target other than Freeway: the `freeway` command's, so that they differ only in what runs, and `steadyFlags`. */
const rowFlags = [...serverNodeFlags([], process.env), ...steadyFlags];
const concurrencies = (process.env.BENCH_CONCURRENCY ?? '1,16,64').split(',').map(Number);
const streamChunks = 20;
const proxyCpu = '0';
const loadCpu = cpus().length > 1 ? '1' : '0';
const hasWrk = commandExists('wrk');
/** A V8 young generation of 2 MB semi-spaces: less memory under many streams, some throughput lost. */
const smallYoungGeneration = '--max-semi-space-size=2';
/** Another built checkout measured as a third target, alternating with the others. */
const beforeDir = process.env.BENCH_BEFORE;
/** How the floor target parses the upstream answer: `sdk` (the AI SDK's provider package, as Freeway) or `lean` (hand-written, for comparison). */
const floorParser = process.env.FLOOR_PARSER === 'lean' ? 'lean' : 'sdk';
/** Portkey's gateway as a target of the request rows (BENCH_PORTKEY=0 leaves it out). */
const withPortkey = process.env.BENCH_PORTKEY !== '0';
/** Only the request rows and their targets: no time to first byte, slow streams, memory or start-up. */
const tableOnly = process.env.BENCH_TABLE_ONLY === '1';
/** Slow streams held open at once for the CPU row: 256 streams of 40 chunks a second (25 ms apart). */
const slowStreamCount = 256;
const slowChunkDelayMs = 25;

interface Running {
  readonly proc: ChildProcess;
  readonly pid: number;
  readonly url: string;
  /** The request headers this target is sent instead of the key header (Portkey's: provider, host, key; for cache misses the key and `Cache-Control: no-cache`). */
  readonly headers?: Readonly<Record<string, string>>;
}

async function startNode(cpu: string, script: string, env: Record<string, string>, port: number, probePath: string, nodeFlags: readonly string[] = [], dir = root): Promise<Running> {
  const [command, args] = pinned(cpu, process.execPath, [...nodeFlags, join(dir, script)]);
  const proc = spawn(command, args, { env: { ...process.env, ...env }, stdio: ['ignore', 'ignore', 'inherit'] });
  const url = `http://127.0.0.1:${port}`;
  await waitForHttp(url + probePath);
  // With taskset the child's pid is the exec'd node itself.
  return { proc, pid: proc.pid as number, url };
}

async function stop(running: Running): Promise<void> {
  running.proc.kill('SIGTERM');
  await once(running.proc, 'exit');
}

interface LoadResult {
  rps: number;
  p50: number;
  p99: number;
  requests: number;
  errors: number;
}

function toMs(value: string, unit: string): number {
  const n = Number(value);
  return unit === 'us' ? n / 1000 : unit === 's' ? n * 1000 : unit === 'm' ? n * 60_000 : n;
}

function runWrk(url: string, stream: boolean, connections: number, headers?: Readonly<Record<string, string>>, duration = seconds): LoadResult {
  const script = join(outDir, `post-${stream ? 'stream' : 'json'}${headers ? '-headers' : ''}.lua`);
  writeFileSync(script, wrkScript(stream, headers));
  const [command, args] = pinned(loadCpu, 'wrk', ['-t1', `-c${connections}`, `-d${duration}s`, '--latency', '-s', script, `${url}/v1/chat/completions`]);
  const out = execFileSync(command, args, { encoding: 'utf8' });
  const rps = Number(/Requests\/sec:\s+([\d.]+)/.exec(out)?.[1] ?? 0);
  const p50 = /50%\s+([\d.]+)(us|ms|s)/.exec(out);
  const p99 = /99%\s+([\d.]+)(us|ms|s)/.exec(out);
  const requests = Number(/(\d+) requests in/.exec(out)?.[1] ?? 0);
  const non2xx = Number(/Non-2xx or 3xx responses: (\d+)/.exec(out)?.[1] ?? 0);
  const socketErrors = /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/.exec(out);
  const errors = non2xx + (socketErrors ? socketErrors.slice(1).reduce((sum, n) => sum + Number(n), 0) : 0);
  return { rps, p50: p50 ? toMs(p50[1]!, p50[2]!) : 0, p99: p99 ? toMs(p99[1]!, p99[2]!) : 0, requests, errors };
}

function runAutocannon(url: string, stream: boolean, connections: number, headers: Readonly<Record<string, string>> = { 'X-Cerebras-Key': key }, duration = seconds): LoadResult {
  const [command, args] = pinned(loadCpu, 'npx', [
    '--yes', 'autocannon', '-j', '-c', String(connections), '-d', String(duration), '-m', 'POST',
    '-H', 'Content-Type=application/json', ...Object.entries(headers).flatMap(([name, value]) => ['-H', `${name}=${value}`]), '-b', body(stream), `${url}/v1/chat/completions`,
  ]);
  const result = JSON.parse(execFileSync(command, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] })) as {
    requests: { average: number; total: number };
    latency: { p50: number; p99: number };
    non2xx: number;
    errors: number;
  };
  return { rps: result.requests.average, p50: result.latency.p50, p99: result.latency.p99, requests: result.requests.total, errors: result.non2xx + result.errors };
}

const load = hasWrk ? runWrk : runAutocannon;

interface Measured extends LoadResult {
  cpuUsPerRequest: number;
}

function measure(target: Running, stream: boolean, connections: number): Measured {
  const before = cpuTicks(target.pid);
  const result = load(target.url, stream, connections, target.headers);
  const ticks = cpuTicks(target.pid) - before;
  return { ...result, cpuUsPerRequest: result.requests > 0 ? (ticks / ticksPerSecond / result.requests) * 1e6 : 0 };
}

/** Time to the first body byte of a stream, sequentially, one connection. */
async function timeToFirstByte(url: string, count: number, headers: Readonly<Record<string, string>> = { 'x-cerebras-key': key }): Promise<number[]> {
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const payload = body(true);
  const times: number[] = [];
  for (let i = 0; i < count; i++) {
    times.push(
      await new Promise<number>((resolve, reject) => {
        const started = performance.now();
        const req = request(`${url}/v1/chat/completions`, { method: 'POST', agent, headers: { 'content-type': 'application/json', ...headers } }, (res) => {
          res.once('data', () => resolve(performance.now() - started));
          res.resume();
        });
        req.on('error', reject);
        req.end(payload);
      }),
    );
  }
  agent.destroy();
  return times;
}

function freewayEnv(port: number, upstream: string): Record<string, string> {
  return {
    PORT: String(port),
    HOST: '127.0.0.1',
    CEREBRAS_BASE_URL: upstream,
    RATE_LIMIT_MAX: '1000000000',
    ROUTING: 'priority',
  };
}

/** Freeway's build as a target of the CPU rows: the `freeway` command's flags (or `flags`) and `steadyFlags`. */
function startFreewayRow(env: Record<string, string>, port: number, flags: readonly string[] = serverNodeFlags([], { ...process.env, ...env }), dir = root): Promise<Running> {
  return startFreeway(env, port, [...flags, ...steadyFlags], dir);
}

/** Freeway's build (of `dir`, this checkout by default), with the Node flags the `freeway` command gives its server (none when NODE_OPTIONS in `env` chooses). */
function startFreeway(env: Record<string, string>, port: number, nodeFlags: readonly string[] = serverNodeFlags([], { ...process.env, ...env }), dir = root): Promise<Running> {
  return startNode(proxyCpu, 'dist/server/main.js', env, port, '/health', nodeFlags, dir);
}

type Target = 'bare' | 'floor' | 'freeway' | 'before' | 'portkey' | 'cacheMiss' | 'cacheHit';

/** Portkey's gateway on the proxy's core, with the Node flags Freeway's server gets; each request names the mock as its OpenAI host. */
async function startPortkey(upstream: string, port: number): Promise<Running> {
  const running = await startNode(proxyCpu, 'scripts/bench/portkey.ts', { PROXY_PORT: String(port) }, port, '/', rowFlags);
  return { ...running, headers: portkeyHeaders(upstream) };
}

function startFloor(upstream: string, port: number): Promise<Running> {
  return startNode(proxyCpu, 'scripts/bench/sdk-floor.ts', { PROXY_PORT: String(port), UPSTREAM: upstream, FLOOR_PARSER: floorParser }, port, '/', rowFlags);
}

/** Milliseconds from spawning Freeway to its first answer of `probe` (the health check, or a whole completion). */
async function startupTime(upstream: string, probe: 'health' | 'completion'): Promise<number> {
  const port = await freePort();
  const started = performance.now();
  const env = freewayEnv(port, upstream);
  const [command, args] = pinned(proxyCpu, process.execPath, [...serverNodeFlags([], { ...process.env, ...env }), join(root, 'dist/server/main.js')]);
  const proc = spawn(command, args, { env: { ...process.env, ...env }, stdio: 'ignore' });
  const deadline = Date.now() + 10_000;
  let ms = Number.NaN;
  while (Date.now() < deadline) {
    try {
      const res =
        probe === 'health'
          ? await fetch(`http://127.0.0.1:${port}/health`)
          : await fetch(`http://127.0.0.1:${port}/v1/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-cerebras-key': key }, body: body(false) });
      await res.arrayBuffer();
      if (res.ok) {
        ms = performance.now() - started;
        break;
      }
    } catch {
      await new Promise((r) => setTimeout(r, 2));
    }
  }
  proc.kill('SIGTERM');
  await once(proc, 'exit');
  return ms;
}

/**
 * 256 streams held open at once, each 20 chunks 25 ms apart (40 chunks a second), for BENCH_SECONDS:
 * how many each target completed (a target that cannot keep up completes fewer) and the CPU it took.
 */
interface SlowStreamShare {
  /** Streams completed, as a share of the bare proxy's. */
  readonly completed: number;
  /** CPU taken, as a multiple of the bare proxy's. */
  readonly cpu: number;
}

async function slowStreamRow(mockCmd: string, mockArgs: string[], log: (line?: string) => void): Promise<Record<'floor' | 'freeway', SlowStreamShare>> {
  const port = await freePort();
  const mock = spawn(mockCmd, mockArgs, { env: { ...process.env, MOCK_PORT: String(port), MOCK_CHUNKS: String(streamChunks), MOCK_CHUNK_DELAY_MS: String(slowChunkDelayMs) }, stdio: 'ignore' });
  const upstream = `http://127.0.0.1:${port}`;
  await waitForHttp(upstream);
  const starters: Array<[Target, () => Promise<Running>]> = [
    ['bare', async () => { const p = await freePort(); return startNode(proxyCpu, 'scripts/bench/bare-proxy.ts', { PROXY_PORT: String(p), UPSTREAM: upstream }, p, '/', steadyFlags); }],
    ['floor', async () => { const p = await freePort(); return startFloor(upstream, p); }],
    ['freeway', async () => { const p = await freePort(); return startFreewayRow(freewayEnv(p, upstream), p); }],
  ];
  if (beforeDir) starters.push(['before', async () => { const p = await freePort(); const env = freewayEnv(p, upstream); return startFreewayRow(env, p, await checkoutNodeFlags(beforeDir, { ...process.env, ...env }), beforeDir); }]);
  const results: Record<Target, Array<{ completed: number; cpu: number }>> = { bare: [], floor: [], freeway: [], before: [], portkey: [], cacheMiss: [], cacheHit: [] };
  for (let round = 0; round < rounds; round++) {
    for (const [name, start] of starters) {
      const target = await start();
      await timeToFirstByte(target.url, 5);
      const ticks = cpuTicks(target.pid);
      let cpu = 0;
      const window = setTimeout(() => (cpu = (cpuTicks(target.pid) - ticks) / ticksPerSecond / seconds), seconds * 1000);
      const { completed } = await slowStreams(target.url, slowStreamCount, seconds * 1000);
      clearTimeout(window);
      results[name].push({ completed, cpu });
      await stop(target);
    }
  }
  mock.kill('SIGTERM');
  await once(mock, 'exit');
  const completed = (name: Target): number => median(results[name].map((r) => r.completed));
  const cpu = (name: Target): number => median(results[name].map((r) => r.cpu));
  const share = (name: Target): SlowStreamShare => ({ completed: completed(name) / completed('bare'), cpu: cpu(name) / cpu('bare') });
  const row = (name: Target): string => {
    const { completed: done, cpu: times } = share(name);
    return `${name} ${fmt(completed(name))} completed (${fmt(done * 100)}% of bare), ${fmt(cpu(name) * 100)}% of a core (${fmt(times, 2)} × bare)`;
  };
  const names: Target[] = beforeDir ? ['bare', 'floor', 'freeway', 'before'] : ['bare', 'floor', 'freeway'];
  log(`- ${slowStreamCount} slow streams (40 chunks/s each) for ${seconds} s: ${names.map(row).join('; ')}`);
  return { floor: share('floor'), freeway: share('freeway') };
}

const mb = (bytes: number): string => (bytes / 1024 / 1024).toFixed(1);
const fmt = (n: number, digits = 0): string => n.toFixed(digits);
const check = (ok: boolean): string => (ok ? 'met' : 'MISSED');

function portkeyVersion(): string {
  return (JSON.parse(readFileSync(join(root, 'node_modules/@portkey-ai/gateway/package.json'), 'utf8')) as { version: string }).version;
}

/** The targets of the request rows: CPU per request against the floor's, and requests per second against Portkey's. */
function logTargets(log: (line?: string) => void, rows: Record<string, { floorCpu: number; freewayCpu: number; overFloor: number }>, behindPortkey: readonly string[]): void {
  log();
  log('## Targets');
  log();
  for (const row of ['json@16', 'stream@64']) {
    const name = row.replace('json', 'non-stream');
    const measured = rows[row];
    if (!measured) {
      log(`- ${name}: not measured (BENCH_CONCURRENCY leaves it out)`);
      continue;
    }
    // The design's bound: the AI SDK's provider packages parse upstream answers (the floor); Freeway's own layers may add half of that again.
    log(`- CPU per request, ${name}: ${fmt(measured.overFloor, 2)} × the floor's (target <= 1.5): ${check(measured.overFloor <= 1.5)}; ${fmt(measured.freewayCpu, 1)} × bare, the floor ${fmt(measured.floorCpu, 1)} × bare`);
  }
  if (withPortkey) log(`- requests per second at least Portkey's on every row: ${check(behindPortkey.length === 0)}${behindPortkey.length ? ` (behind at ${behindPortkey.join(', ')})` : ''}`);
}

async function main(): Promise<void> {
  // Measure the build, which the packed `freeway` command runs (from a clone, npm start runs the same code from source).
  execFileSync(process.execPath, [join(root, 'node_modules/typescript/bin/tsc'), '-p', join(root, 'tsconfig.build.json')], { stdio: 'inherit' });
  const lines: string[] = [];
  const log = (line = ''): void => {
    lines.push(line);
    console.log(line);
  };
  const nodeVersion = process.version;
  const cpuModel = cpus()[0]?.model ?? 'unknown';
  log(`# Freeway benchmark`);
  log();
  log(`- date: ${new Date().toISOString()}`);
  log(`- machine: ${cpus().length} x ${cpuModel}, ${mb(totalmem())} MB RAM; Node ${nodeVersion}`);
  log(`- load generator: ${hasWrk ? 'wrk' : 'autocannon'}; pinning: ${pinning ? `proxy on CPU ${proxyCpu}, mock + load on CPU ${loadCpu}` : 'none (no taskset)'}`);
  log(`- ${seconds} s per run, ${rounds} rounds interleaved (bare, floor, Freeway, ...), medians shown; stream = ${streamChunks} chunks; model ${model}`);
  log(`- warm-up: ${warmupSeconds > 0 ? `${warmupSeconds} s of load on each target before the first row (BENCH_WARMUP)` : 'none (BENCH_WARMUP=0): rows from cold servers'}`);
  log(`- V8's memory reducer: ${steadyFlags.length > 0 ? 'off for the CPU rows\' targets (--no-memory-reducer), so that waiting for its turn does not cost a target its optimized code' : 'on (BENCH_MEMORY_REDUCER=1)'}`);
  log(`- load average at the start: ${loadavg().map((n) => n.toFixed(2)).join(', ')} (${cpus().length} cores)`);
  log(`- floor: scripts/bench/sdk-floor.ts, the upstream call and its parsing alone, parsed by ${floorParser === 'sdk' ? "the AI SDK's provider package, as in Freeway" : 'a hand-written parser (FLOOR_PARSER=lean)'}`);
  log();

  const mockPort = await freePort();
  const [mockCmd, mockArgs] = pinned(loadCpu, process.execPath, [join(root, 'scripts/bench/mock-upstream.ts')]);
  const mock = spawn(mockCmd, mockArgs, { env: { ...process.env, MOCK_PORT: String(mockPort), MOCK_CHUNKS: String(streamChunks) }, stdio: 'ignore' });
  const upstream = `http://127.0.0.1:${mockPort}`;
  await waitForHttp(upstream);

  const barePort = await freePort();
  const bare = await startNode(proxyCpu, 'scripts/bench/bare-proxy.ts', { PROXY_PORT: String(barePort), UPSTREAM: upstream }, barePort, '/', steadyFlags);
  const floorPort = await freePort();
  const floor = await startFloor(upstream, floorPort);
  const freewayPort = await freePort();
  const freeway = await startFreewayRow(freewayEnv(freewayPort, upstream), freewayPort);
  const beforePort = await freePort();
  const beforeEnv = freewayEnv(beforePort, upstream);
  const beforeFlags = beforeDir ? await checkoutNodeFlags(beforeDir, { ...process.env, ...beforeEnv }) : [];
  const before = beforeDir ? await startFreewayRow(beforeEnv, beforePort, beforeFlags, beforeDir) : undefined;
  // The response cache (CACHE=memory): misses (every request with `Cache-Control: no-cache`, which still names, records,
  // seals and keeps its answer: all a miss costs but the lookup), and hits (the same request again and again).
  const cacheMissPort = await freePort();
  const cacheMiss = { ...(await startFreewayRow({ ...freewayEnv(cacheMissPort, upstream), CACHE: 'memory' }, cacheMissPort)), headers: { 'X-Cerebras-Key': key, 'Cache-Control': 'no-cache' } };
  const cacheHitPort = await freePort();
  const cacheHit = await startFreewayRow({ ...freewayEnv(cacheHitPort, upstream), CACHE: 'memory' }, cacheHitPort);
  const portkeyPort = await freePort();
  const portkey = withPortkey ? await startPortkey(upstream, portkeyPort) : undefined;
  const targets: Array<[Target, Running]> = [
    ['bare', bare],
    ['floor', floor],
    ['freeway', freeway],
    ...(before ? [['before', before] as [Target, Running]] : []),
    ...(portkey ? [['portkey', portkey] as [Target, Running]] : []),
    ['cacheMiss', cacheMiss],
    ['cacheHit', cacheHit],
  ];
  // Idle memory as the `freeway` command runs it (memory reducer on), on a process of its own.
  const idlePort = await freePort();
  const idle = await startFreeway(freewayEnv(idlePort, upstream), idlePort);
  await new Promise((r) => setTimeout(r, 1000));
  const coldRss = rssBytes(idle.pid);
  // One request each so that lazy work is not counted as start-up of the run.
  for (const [, target] of [...targets, ['freeway', idle] as [Target, Running]]) await timeToFirstByte(target.url, 20, target.headers);
  await new Promise((r) => setTimeout(r, 1000));
  const idleRss = rssBytes(idle.pid);
  await stop(idle);
  if (warmupSeconds > 0) {
    const half = Math.max(1, Math.round(warmupSeconds / 2));
    for (const [, target] of targets) {
      load(target.url, false, 16, target.headers, half);
      load(target.url, true, 64, target.headers, half);
    }
  }

  log(`- Freeway, the floor and Portkey run with the freeway command's Node flags: ${serverNodeFlags([], process.env).join(' ') || 'none'}`);
  if (before) log(`- before: the build of ${beforeDir} with its own command's Node flags (${beforeFlags.join(' ') || 'none'}), measured in the same run, alternating with the others`);
  const beforeHead = before ? ' before req/s | before CPU µs/req | before CPU × bare | before CPU × floor |' : '';
  log(`| mode | conns | bare req/s | Freeway req/s | ratio | bare p50/p99 ms | Freeway p50/p99 ms | bare CPU µs/req | floor CPU µs/req | floor CPU × bare | Freeway CPU µs/req | Freeway CPU × bare | Freeway CPU × floor |${beforeHead} errors |`);
  log(`|---|---|---|---|---|---|---|---|---|---|---|---|---|${before ? '---|---|---|---|' : ''}---|`);
  /** Per row (`json@16`, `stream@64`, ...): Freeway's requests per second against the bare proxy's, and the CPU per request of the floor and of Freeway against the bare proxy's and of Freeway against the floor's. */
  const rows: Record<string, { rps: number; floorCpu: number; freewayCpu: number; overFloor: number }> = {};
  /** Per row: Freeway's CPU per request with CACHE=off, and with CACHE=memory on misses and on hits. */
  const cacheRows: string[] = [];
  /** Per row, as the Portkey table shows it: Freeway's and Portkey's medians. */
  const portkeyRows: string[] = [];
  const behindPortkey: string[] = [];
  for (const stream of [false, true]) {
    for (const connections of concurrencies) {
      const runs: Record<Target, Measured[]> = { bare: [], floor: [], freeway: [], before: [], portkey: [], cacheMiss: [], cacheHit: [] };
      for (let round = 0; round < rounds; round++) {
        for (const [name, target] of targets) runs[name].push(measure(target, stream, connections));
      }
      const pick = (which: Target, field: keyof Measured): number => median(runs[which].map((run) => run[field]));
      const ratio = pick('freeway', 'rps') / pick('bare', 'rps');
      const cpuTimes = (which: Target): number => pick(which, 'cpuUsPerRequest') / pick('bare', 'cpuUsPerRequest');
      const overFloor = (which: Target): number => pick(which, 'cpuUsPerRequest') / pick('floor', 'cpuUsPerRequest');
      rows[`${stream ? 'stream' : 'json'}@${connections}`] = { rps: ratio, floorCpu: cpuTimes('floor'), freewayCpu: cpuTimes('freeway'), overFloor: overFloor('freeway') };
      const errors = [...runs.bare, ...runs.floor, ...runs.freeway, ...runs.before].reduce((sum, run) => sum + run.errors, 0);
      const cacheErrors = [...runs.cacheMiss, ...runs.cacheHit].reduce((sum, run) => sum + run.errors, 0);
      const overOff = (which: Target): number => pick(which, 'cpuUsPerRequest') / pick('freeway', 'cpuUsPerRequest');
      cacheRows.push(
        `| ${stream ? 'stream' : 'non-stream'} | ${connections} | ${fmt(pick('freeway', 'rps'))} | ${fmt(pick('freeway', 'cpuUsPerRequest'))} | ${fmt(pick('cacheMiss', 'rps'))} | ${fmt(pick('cacheMiss', 'cpuUsPerRequest'))} | ${fmt(overOff('cacheMiss'), 2)} | ${fmt(pick('cacheHit', 'rps'))} | ${fmt(pick('cacheHit', 'cpuUsPerRequest'))} | ${fmt(overOff('cacheHit'), 2)} | ${cacheErrors} |`,
      );
      if (portkey) {
        const row = `${stream ? 'stream' : 'non-stream'}@${connections}`;
        const overPortkey = pick('freeway', 'rps') / pick('portkey', 'rps');
        if (overPortkey < 1) behindPortkey.push(`${row} (${fmt(overPortkey, 2)})`);
        const portkeyErrors = runs.portkey.reduce((sum, run) => sum + run.errors, 0);
        portkeyRows.push(
          `| ${stream ? 'stream' : 'non-stream'} | ${connections} | ${fmt(pick('freeway', 'rps'))} | ${fmt(pick('portkey', 'rps'))} | ${fmt(overPortkey, 2)} | ${fmt(pick('freeway', 'p50'), 2)} / ${fmt(pick('freeway', 'p99'), 2)} | ${fmt(pick('portkey', 'p50'), 2)} / ${fmt(pick('portkey', 'p99'), 2)} | ${fmt(pick('freeway', 'cpuUsPerRequest'))} | ${fmt(pick('portkey', 'cpuUsPerRequest'))} | ${fmt(pick('freeway', 'cpuUsPerRequest') / pick('portkey', 'cpuUsPerRequest'), 2)} | ${portkeyErrors} |`,
        );
      }
      const beforeCells = before ? ` ${fmt(pick('before', 'rps'))} | ${fmt(pick('before', 'cpuUsPerRequest'))} | ${fmt(cpuTimes('before'), 1)} | ${fmt(overFloor('before'), 2)} |` : '';
      log(
        `| ${stream ? 'stream' : 'non-stream'} | ${connections} | ${fmt(pick('bare', 'rps'))} | ${fmt(pick('freeway', 'rps'))} | ${fmt(ratio, 2)} | ${fmt(pick('bare', 'p50'), 2)} / ${fmt(pick('bare', 'p99'), 2)} | ${fmt(pick('freeway', 'p50'), 2)} / ${fmt(pick('freeway', 'p99'), 2)} | ${fmt(pick('bare', 'cpuUsPerRequest'))} | ${fmt(pick('floor', 'cpuUsPerRequest'))} | ${fmt(cpuTimes('floor'), 1)} | ${fmt(pick('freeway', 'cpuUsPerRequest'))} | ${fmt(cpuTimes('freeway'), 1)} | ${fmt(overFloor('freeway'), 2)} |${beforeCells} ${errors} |`,
      );
    }
  }
  log();
  log('Response cache (CACHE=memory) against CACHE=off, the same request; misses sent with `Cache-Control: no-cache` (named, recorded, sealed and kept, not looked up), hits the same request answered from the cache:');
  log();
  log('| mode | conns | CACHE=off req/s | CACHE=off CPU µs/req | misses req/s | misses CPU µs/req | misses CPU × off | hits req/s | hits CPU µs/req | hits CPU × off | errors |');
  log('|---|---|---|---|---|---|---|---|---|---|---|');
  for (const row of cacheRows) log(row);
  log();

  if (portkey) {
    log(`Portkey's gateway (@portkey-ai/gateway ${portkeyVersion()}) in the same runs, on the same core and mock:`);
    log();
    log('| mode | conns | Freeway req/s | Portkey req/s | Freeway ÷ Portkey | Freeway p50/p99 ms | Portkey p50/p99 ms | Freeway CPU µs/req | Portkey CPU µs/req | Freeway CPU ÷ Portkey\'s | Portkey errors |');
    log('|---|---|---|---|---|---|---|---|---|---|---|');
    for (const row of portkeyRows) log(row);
    log();
  }
  if (tableOnly) {
    for (const [, target] of targets) await stop(target);
    mock.kill('SIGTERM');
    await once(mock, 'exit');
    logTargets(log, rows, behindPortkey);
    writeFileSync(join(outDir, 'latest.md'), `${lines.join('\n')}\n`);
    return;
  }

  const ttfb: Record<Target, number[]> = { bare: [], floor: [], freeway: [], before: [], portkey: [], cacheMiss: [], cacheHit: [] };
  for (let round = 0; round < rounds * 2; round++) {
    // Portkey holds every stream 25 ms before its first chunk, and the cache's targets are Freeway's own: not times this row compares.
    for (const [name, target] of targets) if (name !== 'portkey' && name !== 'cacheMiss' && name !== 'cacheHit') ttfb[name].push(...(await timeToFirstByte(target.url, 200)));
  }
  const addedTtfb = median(ttfb.freeway) - median(ttfb.bare);
  const beforeTtfb = before ? `; before ${fmt(median(ttfb.before), 3)} ms, added ${fmt(median(ttfb.before) - median(ttfb.bare), 3)} ms` : '';
  log(`- time to first byte, stream, 1 connection, p50: bare ${fmt(median(ttfb.bare), 3)} ms, Freeway ${fmt(median(ttfb.freeway), 3)} ms, added ${fmt(addedTtfb, 3)} ms${beforeTtfb}`);
  log(`- idle RSS: ${mb(coldRss)} MB after start, before any request; ${mb(idleRss)} MB idle after 20 completions (provider SDK loaded)`);
  for (const [, target] of targets) await stop(target);

  const slow = await slowStreamRow(mockCmd, mockArgs, log);

  // 1000 concurrent streams, each ~1 s: a slow mock (20 chunks, 50 ms apart).
  const slowPort = await freePort();
  const slowMock = spawn(mockCmd, mockArgs, {
    env: { ...process.env, MOCK_PORT: String(slowPort), MOCK_CHUNKS: String(streamChunks), MOCK_CHUNK_DELAY_MS: '50' },
    stdio: 'ignore',
  });
  const slowUpstream = `http://127.0.0.1:${slowPort}`;
  await waitForHttp(slowUpstream);
  const slowBarePort = await freePort();
  const slowBare = await startNode(proxyCpu, 'scripts/bench/bare-proxy.ts', { PROXY_PORT: String(slowBarePort), UPSTREAM: slowUpstream }, slowBarePort, '/');
  await timeToFirstByte(slowBare.url, 5);
  const bareStreams = await peakRssUnderStreams(slowBare, 1000);
  await stop(slowBare);
  const slowFreewayPort = await freePort();
  const slowFreeway = await startFreeway(freewayEnv(slowFreewayPort, slowUpstream), slowFreewayPort);
  await timeToFirstByte(slowFreeway.url, 5);
  const streams = await peakRssUnderStreams(slowFreeway, 1000);
  await stop(slowFreeway);
  const v8SizedPort = await freePort();
  const v8Sized = await startFreeway(freewayEnv(v8SizedPort, slowUpstream), v8SizedPort, []);
  await timeToFirstByte(v8Sized.url, 5);
  const v8SizedStreams = await peakRssUnderStreams(v8Sized, 1000);
  await stop(v8Sized);
  const tunedPort = await freePort();
  const tuned = await startFreeway({ ...freewayEnv(tunedPort, slowUpstream), NODE_OPTIONS: smallYoungGeneration }, tunedPort);
  await timeToFirstByte(tuned.url, 5);
  const tunedStreams = await peakRssUnderStreams(tuned, 1000);
  await stop(tuned);
  log(
    `- 1000 concurrent ~1 s streams, peak RSS: Freeway ${mb(streams.peak)} MB with the freeway command's ${serverNodeFlags([], {}).join(' ')} (${streams.completed} completed, ${streams.failed} failed); ${mb(v8SizedStreams.peak)} MB with V8's own sizing (${v8SizedStreams.completed} completed); with NODE_OPTIONS=${smallYoungGeneration} ${mb(tunedStreams.peak)} MB (${tunedStreams.completed} completed); bare proxy ${mb(bareStreams.peak)} MB`,
  );

  const startups: number[] = [];
  const firstCompletions: number[] = [];
  for (let i = 0; i < 5; i++) {
    startups.push(await startupTime(slowUpstream, 'health'));
    firstCompletions.push(await startupTime(upstream, 'completion'));
  }
  log(`- start-up to first served request (GET /health): median ${fmt(median(startups))} ms (${startups.map((ms) => fmt(ms)).join(', ')})`);
  log(`- start-up to first chat completion (loads the provider SDK): median ${fmt(median(firstCompletions))} ms (${firstCompletions.map((ms) => fmt(ms)).join(', ')})`);
  for (const proc of [slowMock, mock]) {
    proc.kill('SIGTERM');
    await once(proc, 'exit');
  }

  logTargets(log, rows, behindPortkey);
  const slowShare = slow.freeway.completed / slow.floor.completed;
  log(`- 256 slow streams: ${fmt(slowShare * 100)}% of the floor's completions (target >= 95%): ${check(slowShare >= 0.95)}; ${fmt(slow.freeway.completed * 100)}% of bare's at ${fmt(slow.freeway.cpu, 2)} × its CPU, the floor ${fmt(slow.floor.completed * 100)}% at ${fmt(slow.floor.cpu, 2)} ×`);
  log(`- added time to first byte: ${fmt(addedTtfb, 3)} ms (target <= 1 ms): ${check(addedTtfb <= 1)}`);
  log(`- 1000 streams peak RSS: ${mb(streams.peak)} MB, ${mb(tunedStreams.peak)} MB with ${smallYoungGeneration} (target <= 200 MB): ${check(streams.peak <= 200 * 1024 * 1024)} by default, ${check(tunedStreams.peak <= 200 * 1024 * 1024)} tuned`);
  log(`- idle RSS: ${mb(coldRss)} MB before any request, ${mb(idleRss)} MB after 20 completions (target <= 80 MB): ${check(coldRss <= 80 * 1024 * 1024)} before, ${check(idleRss <= 80 * 1024 * 1024)} after`);
  log(`- start-up: ${fmt(median(startups))} ms (target <= 500 ms): ${check(median(startups) <= 500)}`);
  writeFileSync(join(outDir, 'latest.md'), `${lines.join('\n')}\n`);
  console.log(`\n(written to .bench/latest.md)`);
}

await main();
