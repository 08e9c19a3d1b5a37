/**
 * What Freeway adds above its design's floor, layer by layer: CPU profiles
 * (`node --cpu-prof`) of Freeway's build and of the floor
 * (scripts/bench/sdk-floor.ts) under the same load, their self time summed by
 * the file each sample's code lives in, in µs per request.
 *
 *   node scripts/bench/profile-layers.ts                 # profile both under non-stream@16, then sum
 *   PROFILE_STREAM=1 PROFILE_CONNECTIONS=64 node scripts/bench/profile-layers.ts
 *   PROFILE_BEFORE=/path/to/other/checkout node scripts/bench/profile-layers.ts   # also that build (its dist/), as a third column
 *   PROFILE_WARMUP=30 node scripts/bench/profile-layers.ts   # load each process 30 s before profiling it (default 2)
 *   node scripts/bench/profile-layers.ts .bench/freeway.cpuprofile [requests]   # sum a profile again (the run keeps both in .bench/)
 *
 * Each process runs alone on CPU 0 (taskset), the mock upstream and wrk share
 * CPU 1, as in `npm run bench`. The profiler itself costs some CPU, so read
 * the rows against each other and the total against the bench's figure.
 *
 * Two columns per layer: self time (the samples whose innermost JavaScript
 * frame is in that layer's files; native frames such as JSON.parse count for
 * their JavaScript caller), and time caused (the samples whose innermost frame
 * of any Freeway layer is in that layer, so Node's and the libraries' work a
 * layer calls into counts for it; the upstream call, which Freeway's own fetch
 * serves, is such a caller too; samples with no such frame on the stack keep
 * their own layer).
 */
import { execFileSync, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { serverNodeFlags } from '../../bin/node-flags.mjs';
import type { Profile } from './profile-categories.ts';
import { checkoutNodeFlags, cpuTicks, freePort, outDir, pinned, root, ticksPerSecond, waitForHttp, wrkScript } from './harness.ts';


/** The layers, in the order the table shows them; the first seven are Freeway's own. */
const layers = [
  'HTTP and middleware (Express, its packages, server/http)',
  'Body parse and validation',
  'Routing (planning, health, keys, stores)',
  'The routed model (attempts, upstream stream, normaliser)',
  'Client API mapping and encoding',
  'Logging and metrics (request log, pino, prom-client)',
  "The floor's own server (sdk-floor.ts)",
  'Upstream call: AI SDK, zod, provider plugin, upstream fetch',
  'Node: http, net, streams',
  'Node: web streams, undici',
  'Node: events, timers, microtasks',
  'Node: other',
  'Garbage collection',
  'V8, other',
] as const;
type Layer = (typeof layers)[number];
const freewayLayers = new Set<Layer>(layers.slice(0, 6));
/** The layers whose callees count for them in the "caused" column: Freeway's own, and the upstream call's (which Freeway's fetch serves). */
const callerLayers = new Set<Layer>(layers.slice(0, 8));

const expressPackages =
  /node_modules\/(express|router|body-parser|raw-body|cors|express-rate-limit|finalhandler|send|on-finished|on-headers|content-type|mime-types|mime-db|qs|path-to-regexp|depd|statuses|http-errors|iconv-lite|type-is|vary|accepts|negotiator|encodeurl|escape-html|parseurl|fresh|etag|range-parser|media-typer|proxy-addr|forwarded|ipaddr\.js|setprototypeof|debug|ms|object-assign|ip-address)\//;
const loggingPackages = /node_modules\/(pino|pino-std-serializers|sonic-boom|thread-stream|quick-format-unescaped|safe-stable-stringify|atomic-sleep|on-exit-leak-free|fast-redact|@pinojs\/redact|prom-client|tdigest|bintrees)\//;
const upstreamPackages = /node_modules\/(@ai-sdk|zod|eventsource-parser|secure-json-parse|@standard-schema)\//;

/** The layer of the code at `url` (a file: URL of the build or of node_modules, or node:internal). */
export function layerOf(url: string, functionName: string): Layer | undefined {
  if (!url) return functionName === '(garbage collector)' ? 'Garbage collection' : undefined;
  if (url.includes('/node_modules/')) {
    if (expressPackages.test(url)) return 'HTTP and middleware (Express, its packages, server/http)';
    if (loggingPackages.test(url)) return 'Logging and metrics (request log, pino, prom-client)';
    if (upstreamPackages.test(url)) return 'Upstream call: AI SDK, zod, provider plugin, upstream fetch';
    if (/node_modules\/ajv\//.test(url)) return 'Body parse and validation';
    return 'Node: other';
  }
  if (url.startsWith('file://')) {
    if (url.includes('/scripts/bench/sdk-floor')) return "The floor's own server (sdk-floor.ts)";
    if (/\/server\/http\/(request-log|process-logger|metrics|metrics-registry)\./.test(url)) return 'Logging and metrics (request log, pino, prom-client)';
    if (/\/server\/http\/json-body\./.test(url) || /\/server\/api\/(.+\/)?(validate|validation|json-depth|schema|schema-parts)\./.test(url)) return 'Body parse and validation';
    if (/\/server\/routing\/http-client\./.test(url) || /\/providers\//.test(url)) return 'Upstream call: AI SDK, zod, provider plugin, upstream fetch';
    if (/\/server\/routing\/(routed-model|upstream|upstream-errors|stream-parts|attempt)\./.test(url)) return 'The routed model (attempts, upstream stream, normaliser)';
    if (/\/server\/(routing|state|models|core)\//.test(url) || /\/catalog\//.test(url)) return 'Routing (planning, health, keys, stores)';
    if (/\/server\/api\//.test(url)) return 'Client API mapping and encoding';
    return 'HTTP and middleware (Express, its packages, server/http)';
  }
  if (/webstreams|undici/.test(url)) return 'Node: web streams, undici';
  if (/_http|node:http|internal\/http|net|stream_base|streams\/|node:stream|internal\/stream/.test(url)) return 'Node: http, net, streams';
  if (/task_queues|timers|events|async_hooks|diagnostics/.test(url)) return 'Node: events, timers, microtasks';
  return 'Node: other';
}

export interface LayerTimes {
  /** Busy microseconds (everything but idle) in the profile. */
  readonly busyUs: number;
  readonly self: ReadonlyMap<Layer, number>;
  readonly caused: ReadonlyMap<Layer, number>;
}

/** Self time and time caused per layer, in µs, of one .cpuprofile. */
export function sumLayers(profile: Profile): LayerTimes {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const parent = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
  const self = new Map<Layer, number>();
  const caused = new Map<Layer, number>();
  let busyUs = 0;
  profile.samples.forEach((id, i) => {
    const delta = profile.timeDeltas[i] ?? 0;
    const leaf = byId.get(id);
    if (!leaf || leaf.callFrame.functionName === '(idle)') return;
    busyUs += delta;
    let own: Layer | undefined;
    let freeway: Layer | undefined;
    for (let at: number | undefined = id; at !== undefined && freeway === undefined; at = parent.get(at)) {
      const frame = byId.get(at)?.callFrame;
      if (!frame) break;
      const layer = frame.url || frame.functionName === '(garbage collector)' ? layerOf(frame.url, frame.functionName) : undefined;
      if (layer === undefined) continue;
      own ??= layer;
      if (callerLayers.has(layer)) freeway = layer;
    }
    const ownLayer: Layer = own ?? 'V8, other';
    self.set(ownLayer, (self.get(ownLayer) ?? 0) + delta);
    const causedLayer = freeway ?? ownLayer;
    caused.set(causedLayer, (caused.get(causedLayer) ?? 0) + delta);
  });
  return { busyUs, self, caused };
}

function readProfile(file: string): Profile {
  return JSON.parse(readFileSync(file, 'utf8')) as Profile;
}

/**
 * A markdown table of each layer's µs per request (self, its share of busy time, and caused).
 * `cpuUsPerRequest` is the process's CPU per request as /proc counted it: the profile's shares are
 * scaled to it, since the profiler's clock also runs while a busy machine has the process waiting for a core.
 */
export function layerTable(columns: ReadonlyArray<{ name: string; times: LayerTimes; cpuUsPerRequest: number }>): string {
  const per = (us: number | undefined, c: { times: LayerTimes; cpuUsPerRequest: number }): string => (((us ?? 0) / c.times.busyUs) * c.cpuUsPerRequest).toFixed(0);
  const share = (us: number | undefined, busy: number): string => `${((100 * (us ?? 0)) / busy).toFixed(1)}%`;
  const head = `| layer | ${columns.map((c) => `${c.name} self µs/req | share | caused µs/req`).join(' | ')} |`;
  const rule = `|---|${columns.map(() => '---|---|---').join('|')}|`;
  const rows = layers
    .filter((layer) => columns.some((c) => (c.times.self.get(layer) ?? 0) > 0 || (c.times.caused.get(layer) ?? 0) > 0))
    .map((layer) => `| ${layer} | ${columns.map((c) => `${per(c.times.self.get(layer), c)} | ${share(c.times.self.get(layer), c.times.busyUs)} | ${per(c.times.caused.get(layer), c)}`).join(' | ')} |`);
  const ownTotal = (c: { times: LayerTimes }, which: 'self' | 'caused'): number => [...freewayLayers].reduce((sum, layer) => sum + (c.times[which].get(layer) ?? 0), 0);
  const freewayRow = `| **Freeway's own layers** | ${columns.map((c) => `${per(ownTotal(c, 'self'), c)} | ${share(ownTotal(c, 'self'), c.times.busyUs)} | ${per(ownTotal(c, 'caused'), c)}`).join(' | ')} |`;
  const total = `| all (CPU per request) | ${columns.map((c) => `${c.cpuUsPerRequest.toFixed(0)} | 100% | ${c.cpuUsPerRequest.toFixed(0)}`).join(' | ')} |`;
  return [head, rule, ...rows, freewayRow, total].join('\n');
}

/** Seconds of load before each profiled run. */
const warmupSeconds = Number(process.env.PROFILE_WARMUP ?? 2);

/** Runs `script` under `--cpu-prof` on CPU 0 and wrk against it; returns the profile and the requests served. */
async function profileUnderLoad(options: { name: string; dir?: string; script: string; env: Record<string, string>; port: number; probe: string; nodeFlags: readonly string[]; stream: boolean; connections: number; seconds: number }): Promise<{ profile: Profile; requests: number; cpuUsPerRequest: number }> {
  const dir = mkdtempSync(join(tmpdir(), 'freeway-prof-'));
  const [command, args] = pinned('0', process.execPath, [...options.nodeFlags, '--cpu-prof', '--cpu-prof-dir', dir, join(options.dir ?? root, options.script)]);
  const proc = spawn(command, args, { env: { ...process.env, ...options.env }, stdio: ['ignore', 'ignore', 'inherit'] });
  const url = `http://127.0.0.1:${options.port}`;
  await waitForHttp(url + options.probe);
  const wrkFile = join(outDir, `profile-${options.stream ? 'stream' : 'json'}.lua`);
  writeFileSync(wrkFile, wrkScript(options.stream));
  const wrk = (seconds: number): number => {
    const [cmd, wrkArgs] = pinned('1', 'wrk', ['-t1', `-c${options.connections}`, `-d${seconds}s`, '-s', wrkFile, `${url}/v1/chat/completions`]);
    const out = execFileSync(cmd, wrkArgs, { encoding: 'utf8' });
    return Number(/(\d+) requests in/.exec(out)?.[1] ?? 0);
  };
  wrk(warmupSeconds); // warm-up: compiled code and the provider's SDK loaded, then the measured run
  const ticksBefore = cpuTicks(proc.pid as number);
  const requests = wrk(options.seconds);
  const cpuUsPerRequest = ((cpuTicks(proc.pid as number) - ticksBefore) / ticksPerSecond / requests) * 1e6;
  proc.kill('SIGTERM');
  await once(proc, 'exit');
  const file = readdirSync(dir).find((name) => name.endsWith('.cpuprofile'));
  if (!file) throw new Error(`${options.script} wrote no profile to ${dir}`);
  const profile = readProfile(join(dir, file));
  writeFileSync(join(outDir, `${options.name}.cpuprofile`), JSON.stringify(profile));
  // Only the measured run: the warm-up's samples and the start-up are dropped by time.
  return { profile: lastSeconds(profile, options.seconds), requests, cpuUsPerRequest };
}

/** The profile's samples of its last `seconds` before the process stopped serving (the shutdown's own tail is short). */
function lastSeconds(profile: Profile, seconds: number): Profile {
  const times: number[] = [];
  let t = 0;
  for (const delta of profile.timeDeltas) times.push((t += delta));
  const end = t;
  const keep = (i: number): boolean => (times[i] ?? 0) >= end - seconds * 1e6 - 2e5;
  const samples = profile.samples.filter((_, i) => keep(i));
  const timeDeltas = profile.timeDeltas.filter((_, i) => keep(i));
  return { nodes: profile.nodes, samples, timeDeltas };
}

async function main(): Promise<void> {
  const [file, requests] = process.argv.slice(2);
  if (file) {
    const times = sumLayers(readProfile(file));
    // Without a request count, per "request" is per second of busy time.
    console.log(layerTable([{ name: file, times, cpuUsPerRequest: requests ? times.busyUs / Number(requests) : 1e6 }]));
    return;
  }
  const stream = process.env.PROFILE_STREAM === '1';
  const connections = Number(process.env.PROFILE_CONNECTIONS ?? 16);
  const seconds = Number(process.env.PROFILE_SECONDS ?? 10);
  execFileSync(process.execPath, [join(root, 'node_modules/typescript/bin/tsc'), '-p', join(root, 'tsconfig.build.json')], { stdio: 'inherit' });
  const mockPort = await freePort();
  const [mockCmd, mockArgs] = pinned('1', process.execPath, [join(root, 'scripts/bench/mock-upstream.ts')]);
  const mock = spawn(mockCmd, mockArgs, { env: { ...process.env, MOCK_PORT: String(mockPort) }, stdio: 'ignore' });
  const upstream = `http://127.0.0.1:${mockPort}`;
  await waitForHttp(upstream);
  const flags = serverNodeFlags([], process.env);
  const floorPort = await freePort();
  const floor = await profileUnderLoad({ name: 'floor', script: 'scripts/bench/sdk-floor.ts', env: { PROXY_PORT: String(floorPort), UPSTREAM: upstream }, port: floorPort, probe: '/', nodeFlags: flags, stream, connections, seconds });
  const freewayPort = await freePort();
  const freewayEnv = { PORT: String(freewayPort), HOST: '127.0.0.1', CEREBRAS_BASE_URL: upstream, RATE_LIMIT_MAX: '1000000000', ROUTING: 'priority' };
  const freeway = await profileUnderLoad({ name: 'freeway', script: 'dist/server/main.js', env: freewayEnv, port: freewayPort, probe: '/health', nodeFlags: serverNodeFlags([], { ...process.env, ...freewayEnv }), stream, connections, seconds });
  const beforeDir = process.env.PROFILE_BEFORE;
  const beforePort = await freePort();
  const beforeEnv = { ...freewayEnv, PORT: String(beforePort) };
  const before = beforeDir
    ? await profileUnderLoad({ name: 'before', dir: beforeDir, script: 'dist/server/main.js', env: beforeEnv, port: beforePort, probe: '/health', nodeFlags: await checkoutNodeFlags(beforeDir, { ...process.env, ...beforeEnv }), stream, connections, seconds })
    : undefined;
  mock.kill('SIGTERM');
  await once(mock, 'exit');
  if (before) console.log(`before (${beforeDir}): ${before.requests} requests, ${before.cpuUsPerRequest.toFixed(0)} µs CPU each`);
  console.log(`${stream ? 'stream' : 'non-stream'}@${connections}, ${seconds} s each under --cpu-prof: Freeway ${freeway.requests} requests, ${freeway.cpuUsPerRequest.toFixed(0)} µs CPU each; floor ${floor.requests}, ${floor.cpuUsPerRequest.toFixed(0)} µs\n`);
  console.log(layerTable([
    { name: 'Freeway', times: sumLayers(freeway.profile), cpuUsPerRequest: freeway.cpuUsPerRequest },
    ...(before ? [{ name: 'before', times: sumLayers(before.profile), cpuUsPerRequest: before.cpuUsPerRequest }] : []),
    { name: 'floor', times: sumLayers(floor.profile), cpuUsPerRequest: floor.cpuUsPerRequest },
  ]));
}

await main();
