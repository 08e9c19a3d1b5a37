/**
 * A/B of the V8 heap flags Freeway's server runs with: requests per second, CPU
 * per request and the part of it V8 spent collecting garbage (from --trace-gc;
 * the steadiest of the three on a noisy machine), non-streaming at 16
 * connections and streaming at 64, and peak RSS under 1000 concurrent slow
 * streams, for each variant given.
 * The variants run side by side and are measured in turn, round after round,
 * so that drift of the machine falls on all of them alike.
 *
 *   node scripts/bench/heap-flags.ts                    # variants default,16,8,4
 *   HEAP_VARIANTS=32,32+nopretenure HEAP_ROUNDS=6 HEAP_SECONDS=8 node scripts/bench/heap-flags.ts
 *
 * A variant is `+`-joined: "default" (V8's own sizing: 64 MB semi-spaces on a
 * large machine), a number (`--max-semi-space-size` in MB), "nopretenure"
 * (`--no-allocation-site-pretenuring`). The `freeway` command runs its server
 * with 32 and no pretenuring (bin/node-flags.mjs) on the strength of these
 * comparisons. Needs wrk; pins Freeway to CPU 0 and the mock upstream and wrk
 * to CPU 1 when taskset exists. Loopback only; writes .bench/heap-flags.md.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { cpuTicks, freePort, median, outDir, peakRssUnderStreams, pinned, root, ticksPerSecond, waitForHttp, wrkScript } from './harness.ts';

const variants = (process.env.HEAP_VARIANTS ?? 'default,16,8,4').split(',');
const rounds = Number(process.env.HEAP_ROUNDS ?? 4);
const seconds = Number(process.env.HEAP_SECONDS ?? 8);

/** The Node flags of one variant. */
function flagsOf(variant: string): string[] {
  return variant.split('+').flatMap((token) => {
    if (token === 'default') return [];
    if (token === 'nopretenure') return ['--no-allocation-site-pretenuring'];
    if (/^\d+$/.test(token)) return [`--max-semi-space-size=${token}`];
    throw new Error(`unknown variant part "${token}": a number (semi-space MB), default or nopretenure`);
  });
}

/** A variant as the table names it. */
const labelOf = (variant: string): string =>
  variant
    .split('+')
    .map((token) => (token === 'default' ? 'V8 default' : token === 'nopretenure' ? 'no pretenuring' : `${token} MB semi-spaces`))
    .join(', ');

interface Running {
  readonly proc: ChildProcess;
  readonly url: string;
  /** Milliseconds V8 has spent collecting garbage on the main thread so far (from --trace-gc). */
  gcMs(): number;
}

// A --trace-gc line: "Scavenge 10.5 (15.3) -> 8.0 (15.4) MB, pooled: 0 MB, 2.30 / 0.00 ms ..." and, for
// a mark-compact, "(+ 0.3 ms in 49 steps since start of marking ...": the pause and the incremental steps.
const gcPause = /MB, (?:pooled: [\d.]+ MB, )?([\d.]+) \/ [\d.]+ ms(?:\s+\(\+ ([\d.]+) ms in)?/;

async function start(args: string[], env: Record<string, string>, port: number, probe: string, cpu: string): Promise<Running> {
  const [command, argv] = pinned(cpu, process.execPath, args);
  const proc = spawn(command, argv, { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'inherit'] });
  let gcMs = 0;
  let pending = '';
  proc.stdout?.setEncoding('utf8').on('data', (text: string) => {
    const lines = (pending + text).split('\n');
    pending = lines.pop() ?? '';
    for (const line of lines) {
      const match = gcPause.exec(line);
      if (match) gcMs += Number(match[1]) + Number(match[2] ?? 0);
    }
  });
  const url = `http://127.0.0.1:${port}`;
  await waitForHttp(url + probe);
  return { proc, url, gcMs: () => gcMs };
}

async function startFreeway(variant: string, upstream: string): Promise<Running> {
  const port = await freePort();
  const env = { PORT: String(port), HOST: '127.0.0.1', CEREBRAS_BASE_URL: upstream, RATE_LIMIT_MAX: '1000000000', ROUTING: 'priority', LOG_LEVEL: 'warn' };
  return start(['--trace-gc', ...flagsOf(variant), join(root, 'dist/server/main.js')], env, port, '/health', '0');
}

async function stop(running: Running): Promise<void> {
  running.proc.kill('SIGTERM');
  await once(running.proc, 'exit');
}

async function wrk(target: Running, stream: boolean, connections: number): Promise<{ rps: number; cpuUs: number; gcUs: number; errors: number }> {
  const script = join(outDir, `heap-${stream ? 'stream' : 'json'}.lua`);
  writeFileSync(script, wrkScript(stream));
  const pid = target.proc.pid as number;
  const before = cpuTicks(pid);
  const gcBefore = target.gcMs();
  const [command, args] = pinned('1', 'wrk', ['-t1', `-c${connections}`, `-d${seconds}s`, '-s', script, `${target.url}/v1/chat/completions`]);
  const out = execFileSync(command, args, { encoding: 'utf8' });
  const ticks = cpuTicks(pid) - before;
  // Let the last trace lines arrive.
  await new Promise((resolve) => setTimeout(resolve, 200));
  const gcMs = target.gcMs() - gcBefore;
  const requests = Number(/(\d+) requests in/.exec(out)?.[1] ?? 0);
  const errors = Number(/Non-2xx or 3xx responses: (\d+)/.exec(out)?.[1] ?? 0);
  return {
    rps: Number(/Requests\/sec:\s+([\d.]+)/.exec(out)?.[1] ?? 0),
    cpuUs: requests ? (ticks / ticksPerSecond / requests) * 1e6 : 0,
    gcUs: requests ? (gcMs / requests) * 1000 : 0,
    errors,
  };
}

async function main(): Promise<void> {
  execFileSync(process.execPath, [join(root, 'node_modules/typescript/bin/tsc'), '-p', join(root, 'tsconfig.build.json')], { stdio: 'inherit' });
  const mockScript = join(root, 'scripts/bench/mock-upstream.ts');
  const mockPort = await freePort();
  const mock = await start([mockScript], { MOCK_PORT: String(mockPort), MOCK_CHUNKS: '20' }, mockPort, '/', '1');
  const upstream = mock.url;

  const servers = new Map<string, Running>();
  for (const variant of variants) servers.set(variant, await startFreeway(variant, upstream));
  // Warm every variant up before anything is counted.
  for (const server of servers.values()) for (const stream of [false, true]) await wrk(server, stream, 16);

  const results = new Map(
    variants.map((v) => [v, { json: [] as number[], jsonCpu: [] as number[], jsonGc: [] as number[], stream: [] as number[], streamCpu: [] as number[], streamGc: [] as number[], errors: 0 }]),
  );
  for (let round = 0; round < rounds; round++) {
    // Rotate the order each round so that no variant always goes first.
    const order = variants.map((_, i) => variants[(i + round) % variants.length]!);
    for (const variant of order) {
      const server = servers.get(variant)!;
      const result = results.get(variant)!;
      const json = await wrk(server, false, 16);
      const stream = await wrk(server, true, 64);
      result.json.push(json.rps);
      result.jsonCpu.push(json.cpuUs);
      result.jsonGc.push(json.gcUs);
      result.stream.push(stream.rps);
      result.streamCpu.push(stream.cpuUs);
      result.streamGc.push(stream.gcUs);
      result.errors += json.errors + stream.errors;
      console.log(
        `round ${round + 1} ${variant}: non-stream ${json.rps.toFixed(0)} req/s ${json.cpuUs.toFixed(0)} µs (GC ${json.gcUs.toFixed(1)}), stream ${stream.rps.toFixed(0)} req/s ${stream.cpuUs.toFixed(0)} µs (GC ${stream.gcUs.toFixed(1)})`,
      );
    }
  }
  for (const server of servers.values()) await stop(server);
  await stop(mock);

  const slowPort = await freePort();
  const slow = await start([mockScript], { MOCK_PORT: String(slowPort), MOCK_CHUNKS: '20', MOCK_CHUNK_DELAY_MS: '50' }, slowPort, '/', '1');
  const peaks = new Map<string, { peak: number; completed: number }>();
  for (const variant of variants) {
    const server = await startFreeway(variant, slow.url);
    const { peak, completed } = await peakRssUnderStreams({ pid: server.proc.pid as number, url: server.url }, 1000);
    peaks.set(variant, { peak: peak / 1024 / 1024, completed });
    await stop(server);
  }
  await stop(slow);

  // Each round's CPU per request against the first variant's in the same round: the
  // machine's drift between rounds cancels out of these ratios.
  const base = results.get(variants[0]!)!;
  const paired = (mine: number[], theirs: number[]): string => `${((median(mine.map((v, i) => v / theirs[i]!)) - 1) * 100).toFixed(1)}%`;
  const lines = [
    `| heap flags | non-stream 16 req/s | CPU µs/req | CPU vs ${variants[0]} | GC µs/req | stream 64 req/s | CPU µs/req | CPU vs ${variants[0]} | GC µs/req | 1000 streams peak RSS MB | errors |`,
    `|---|---|---|---|---|---|---|---|---|---|---|`,
    ...variants.map((variant) => {
      const r = results.get(variant)!;
      const p = peaks.get(variant)!;
      return `| ${labelOf(variant)} | ${median(r.json).toFixed(0)} | ${median(r.jsonCpu).toFixed(0)} | ${paired(r.jsonCpu, base.jsonCpu)} | ${median(r.jsonGc).toFixed(1)} | ${median(r.stream).toFixed(0)} | ${median(r.streamCpu).toFixed(0)} | ${paired(r.streamCpu, base.streamCpu)} | ${median(r.streamGc).toFixed(1)} | ${p.peak.toFixed(1)} (${p.completed}/1000 completed) | ${r.errors} |`;
    }),
  ];
  console.log(`\n${rounds} rounds of ${seconds} s, medians:\n\n${lines.join('\n')}`);
  writeFileSync(join(outDir, 'heap-flags.md'), `${lines.join('\n')}\n`);
}

await main();
