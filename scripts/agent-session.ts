/**
 * An agent's session on free keys, played against two builds of Freeway: 60 requests, two at
 * a time, on one Groq-like key that allows 10 requests a minute and one Z.AI-like key that takes
 * one request at a time, both fake upstreams on 127.0.0.1 that enforce those windows as the
 * providers do (Groq's 429 with `retry-after`, Z.AI's 429 with business code 1302, bodies from
 * providers/groq/fixtures.ts and providers/zai/fixtures.ts). Prints, for each build, how many
 * requests were answered and failed, how many waited and for how long, and how often the
 * answering model changed between consecutive answers.
 *
 *   npm run bench:agents                         # this checkout against the base build (AGENT_BASE_REF, 86b574f)
 *   AGENT_BASE_REF=main npm run bench:agents     # against another commit of this repository
 *   AGENT_REQUESTS=20 npm run bench:agents       # a shorter session
 *
 * The base build is the commit's files (`git archive`) in a temporary directory, run from source
 * with this checkout's node_modules. Each build gets fresh upstreams, so both meet the same windows.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import groqFixtures from '../providers/groq/fixtures.ts';
import zaiFixtures from '../providers/zai/fixtures.ts';
import { freePort, root, waitForHttp } from './bench/harness.ts';

const baseRef = process.env.AGENT_BASE_REF ?? '86b574f';
const requests = Number(process.env.AGENT_REQUESTS ?? 60);
const parallel = 2;
const groqPerMinute = 10;
/** How long the fake upstreams take to answer: an agent's turn is not instant. */
const answerMs = 400;

const groqLimited = groqFixtures.errors.find((row) => row.name === 'per-minute request limit (RPM)');
const zaiBusy = zaiFixtures.errors.find((row) => row.name === 'concurrency limit (1302): a short wait');
if (!groqLimited || !zaiBusy) throw new Error('the Groq RPM and Z.AI 1302 fixture rows are needed');

/** A streamed OpenAI-compatible answer, as both providers send it. */
function answer(res: ServerResponse, model: string): void {
  res.writeHead(200, { 'content-type': 'text/event-stream' });
  const chunk = (delta: unknown, finish: string | null): string =>
    `data: ${JSON.stringify({ id: 'chatcmpl-agent', object: 'chat.completion.chunk', created: 1, model, choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
  const usage = { prompt_tokens: 900, completion_tokens: 40, total_tokens: 940 };
  res.end(`${chunk({ role: 'assistant', content: 'done' }, null)}${chunk({}, 'stop')}data: ${JSON.stringify({ id: 'chatcmpl-agent', object: 'chat.completion.chunk', created: 1, model, choices: [], usage, x_groq: { usage } })}\n\ndata: [DONE]\n\n`);
}

async function readBody(req: IncomingMessage): Promise<{ model?: string }> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  try {
    return JSON.parse(Buffer.concat(chunks).toString('utf8')) as { model?: string };
  } catch {
    return {};
  }
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

interface Upstream {
  readonly url: string;
  readonly server: Server;
  /** Requests it refused for its window or slot. */
  refused: number;
}

async function listen(handler: (req: IncomingMessage, res: ServerResponse, upstream: Upstream) => Promise<void>): Promise<Upstream> {
  const upstream: Upstream = { url: '', server: createServer(), refused: 0 };
  upstream.server.on('request', (req, res) => void handler(req, res, upstream).catch(() => res.destroy()));
  upstream.server.listen(0, '127.0.0.1');
  await once(upstream.server, 'listening');
  return Object.assign(upstream, { url: `http://127.0.0.1:${(upstream.server.address() as AddressInfo).port}` });
}

/** Groq-like: 10 requests in any 60 s; past it the documented 429 with the seconds until the oldest leaves the window. */
function groqLike(): Promise<Upstream> {
  const times: number[] = [];
  return listen(async (req, res, upstream) => {
    const body = await readBody(req);
    const now = Date.now();
    while (times.length > 0 && (times[0] as number) <= now - 60_000) times.shift();
    if (times.length >= groqPerMinute) {
      upstream.refused += 1;
      const retryAfter = Math.max(1, Math.ceil(((times[0] as number) + 60_000 - now) / 1000));
      res.writeHead(429, { 'content-type': 'application/json', 'retry-after': String(retryAfter) });
      res.end(JSON.stringify(groqLimited?.body));
      return;
    }
    times.push(now);
    await sleep(answerMs);
    answer(res, body.model ?? 'groq');
  });
}

/** Z.AI-like: one request in flight per key; a second meets the documented 1302. */
function zaiLike(): Promise<Upstream> {
  let inFlight = 0;
  return listen(async (req, res, upstream) => {
    const body = await readBody(req);
    if (inFlight > 0) {
      upstream.refused += 1;
      res.writeHead(429, { 'content-type': 'application/json' });
      res.end(JSON.stringify(zaiBusy?.body));
      return;
    }
    inFlight += 1;
    try {
      await sleep(answerMs);
      answer(res, body.model ?? 'zai');
    } finally {
      inFlight -= 1;
    }
  });
}

interface Outcome {
  readonly build: string;
  answered: number;
  readonly failed: Map<number, number>;
  waits: number;
  waitedSeconds: number;
  switches: number;
  upstreamRefusals: number;
  seconds: number;
}

/** Plays the session against one running Freeway: `parallel` agents' calls at a time, `requests` in all. */
async function session(url: string, build: string): Promise<Outcome> {
  const outcome: Outcome = { build, answered: 0, failed: new Map(), waits: 0, waitedSeconds: 0, switches: 0, upstreamRefusals: 0, seconds: 0 };
  const headers = { 'content-type': 'application/json', 'X-Groq-Key': groqFixtures.sampleKey, 'X-Zai-Key': zaiFixtures.sampleKey };
  let next = 0;
  let lastModel: string | undefined;
  const began = performance.now();
  const agent = async (): Promise<void> => {
    while (next < requests) {
      const turn = next++;
      const body = { model: 'free:auto', stream: true, messages: [{ role: 'system', content: 'You are a coding agent.' }, { role: 'user', content: `step ${turn}: read the file and change it` }] };
      const res = await fetch(`${url}/v1/chat/completions`, { method: 'POST', headers, body: JSON.stringify(body) });
      await res.text();
      if (res.status !== 200) {
        outcome.failed.set(res.status, (outcome.failed.get(res.status) ?? 0) + 1);
        continue;
      }
      outcome.answered += 1;
      const waited = res.headers.get('x-freeway-waited');
      if (waited !== null) {
        outcome.waits += 1;
        outcome.waitedSeconds += Number(waited);
      }
      const model = res.headers.get('x-freeway-model') ?? '';
      if (lastModel !== undefined && model !== lastModel) outcome.switches += 1;
      lastModel = model;
    }
  };
  await Promise.all(Array.from({ length: parallel }, agent));
  outcome.seconds = (performance.now() - began) / 1000;
  return outcome;
}

async function startFreeway(dir: string, env: Record<string, string>): Promise<{ proc: ChildProcess; url: string }> {
  const port = await freePort();
  const proc = spawn(process.execPath, [join(dir, 'server/main.ts')], {
    cwd: dir,
    env: { ...process.env, ...env, PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'warn' },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const url = `http://127.0.0.1:${port}`;
  await waitForHttp(`${url}/health`);
  return { proc, url };
}

async function run(build: string, dir: string): Promise<Outcome> {
  const [groq, zai] = await Promise.all([groqLike(), zaiLike()]);
  const freeway = await startFreeway(dir, { GROQ_BASE_URL: groq.url, ZAI_BASE_URL: zai.url });
  try {
    const outcome = await session(freeway.url, build);
    outcome.upstreamRefusals = groq.refused + zai.refused;
    return outcome;
  } finally {
    freeway.proc.kill('SIGTERM');
    await once(freeway.proc, 'exit');
    groq.server.close();
    zai.server.close();
  }
}

/** The base commit's files, to run from source beside this checkout's node_modules. */
function checkOut(ref: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'freeway-base-'));
  const archive = execFileSync('git', ['-C', root, 'archive', '--format=tar', ref], { maxBuffer: 512 * 1024 ** 2 });
  execFileSync('tar', ['-x', '-C', dir], { input: archive });
  symlinkSync(join(root, 'node_modules'), join(dir, 'node_modules'));
  return dir;
}

function report(outcomes: readonly Outcome[]): void {
  const rows = outcomes.map((o) => {
    const failed = o.failed.size === 0 ? '0' : [...o.failed].map(([status, count]) => `${count} (${status})`).join(', ');
    return `| ${o.build} | ${o.answered} | ${failed} | ${o.waits} (${o.waitedSeconds.toFixed(1)} s in all) | ${o.switches} | ${o.upstreamRefusals} | ${o.seconds.toFixed(1)} s |`;
  });
  console.log(`\nAn agent session: ${requests} requests, ${parallel} at a time, free:auto on a Groq-like key (${groqPerMinute} a minute) and a Z.AI-like key (one at a time)\n`);
  console.log('| build | answered | failed (status) | waited | model switches | 429s met upstream | session |');
  console.log('|---|---|---|---|---|---|---|');
  for (const row of rows) console.log(row);
}

const baseDir = checkOut(baseRef);
try {
  const base = await run(`base ${baseRef}`, baseDir);
  const head = execFileSync('git', ['-C', root, 'rev-parse', '--short', 'HEAD']).toString().trim();
  const current = await run(`this build (${head})`, root);
  report([base, current]);
} finally {
  rmSync(baseDir, { recursive: true, force: true });
}
