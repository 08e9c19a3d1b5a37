import { expect } from 'chai';
import { fork, spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { request } from 'node:http';
import { connect } from 'node:net';
import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { Redis } from 'ioredis';
import { faults } from '../support/faults.ts';
import { keyHeaders } from '../support/keys.ts';
import { skipWithoutRedis, startRedis, type RunningRedis } from '../support/redis.ts';
import { startUpstream, type FakeUpstream } from '../support/upstream.ts';
import { startOtlpReceiver } from '../support/otlp.ts';

const mainScript = fileURLToPath(new URL('../../server/main.ts', import.meta.url));
const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

interface LogLine {
  level: number;
  pid?: number;
  msg: string;
}

interface Cluster {
  readonly url: string;
  readonly proc: ChildProcess;
  /** Every JSON log line of the primary and its workers so far. */
  readonly lines: LogLine[];
  /** Raw output, for failure messages. */
  readonly output: string[];
  readonly exited: Promise<number | null>;
  readonly primaryPid: number;
  workerPids(): number[];
  waitFor(what: RegExp, count?: number, ms?: number): Promise<LogLine[]>;
}

interface Reply {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** One request on a connection of its own, so that the cluster can hand it to any worker. */
function fresh(url: string, path: string, options: { method?: string; headers?: Record<string, string>; body?: string } = {}): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = request(
      `${url}${path}`,
      { method: options.method ?? 'GET', agent: false, headers: { connection: 'close', ...options.headers } },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (body += chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
      },
    );
    req.on('error', reject);
    req.end(options.body);
  });
}

const chat = (url: string, headers: Record<string, string>, extra: Record<string, unknown> = {}): Promise<Reply> =>
  fresh(url, '/v1/chat/completions', {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify({ model: 'free:auto', messages: [{ role: 'user', content: 'Say hello' }], ...extra }),
  });

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

describe('WORKERS: Freeway on every core (node:cluster)', function () {
  this.timeout(30_000);
  let upstream: FakeUpstream;
  const running: Cluster[] = [];

  before(async () => {
    upstream = await startUpstream();
  });
  beforeEach(() => {
    upstream.handle(faults.ok('Hello from upstream'));
    upstream.requests.length = 0;
  });
  afterEach(async () => {
    for (const cluster of running.splice(0)) {
      const pids = cluster.workerPids();
      cluster.proc.kill('SIGKILL');
      await cluster.exited;
      // Workers leave when their primary's channel closes; make sure of it.
      for (const pid of pids) if (alive(pid)) process.kill(pid, 'SIGKILL');
    }
  });
  after(() => upstream?.close());

  async function startCluster(env: Record<string, string>): Promise<Cluster> {
    const proc = spawn(process.execPath, [mainScript], {
      env: { ...process.env, PORT: '0', HOST: '127.0.0.1', GROQ_BASE_URL: upstream.url, LOG_LEVEL: 'info', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const lines: LogLine[] = [];
    const output: string[] = [];
    const waiters = new Set<() => void>();
    let partial = '';
    proc.stdout.setEncoding('utf8');
    proc.stdout.on('data', (text: string) => {
      output.push(text);
      const parts = (partial + text).split('\n');
      partial = parts.pop() ?? '';
      for (const part of parts) {
        if (part.trim() === '') continue;
        try {
          lines.push(JSON.parse(part) as LogLine);
        } catch {
          lines.push({ level: 0, msg: part });
        }
      }
      for (const wake of waiters) wake();
    });
    proc.stderr.on('data', (text: Buffer) => output.push(text.toString()));
    const exited = once(proc, 'exit').then(([code]) => code as number | null);

    const cluster: Cluster = {
      url: '',
      proc,
      lines,
      output,
      exited,
      primaryPid: proc.pid as number,
      workerPids: () => [...new Set(lines.filter((line) => /^worker listening/.test(line.msg)).map((line) => line.pid as number))],
      waitFor(what, count = 1, ms = 20_000) {
        return new Promise((resolve, reject) => {
          const check = (): void => {
            const found = lines.filter((line) => what.test(line.msg));
            if (found.length < count) return;
            waiters.delete(check);
            clearTimeout(timer);
            resolve(found);
          };
          const timer = setTimeout(() => {
            waiters.delete(check);
            reject(new Error(`no ${count} log line(s) matching ${what} within ${ms} ms:\n${output.join('')}`));
          }, ms);
          waiters.add(check);
          check();
        });
      },
    };
    running.push(cluster);
    const [listening] = await Promise.race([
      cluster.waitFor(/^Freeway listening on/),
      exited.then((code) => Promise.reject(new Error(`exited early with ${code}: ${output.join('')}`))),
    ]);
    const url = /listening on (http:\/\/[\d.]+:\d+)/.exec(listening?.msg ?? '')?.[1];
    if (!url) throw new Error(`no URL in ${listening?.msg}`);
    // Each worker's own line may reach the pipe after the primary's.
    const workers = env.WORKERS === 'auto' ? availableParallelism() : Number(env.WORKERS ?? 1);
    if (workers > 1) await cluster.waitFor(/^worker listening/, workers, 5_000);
    return Object.assign(cluster, { url });
  }

  /** Distinct pids among the request log lines matching `what`. */
  const servedBy = (cluster: Cluster, what: RegExp): Set<number> =>
    new Set(cluster.lines.filter((line) => what.test(line.msg) && line.pid !== cluster.primaryPid).map((line) => line.pid as number));

  it('WORKERS=2: a client gets exactly RATE_LIMIT_MAX requests through, whichever worker serves them', async () => {
    const cluster = await startCluster({ WORKERS: '2', RATE_LIMIT_MAX: '5' });
    expect(cluster.workerPids()).to.have.length(2);
    expect(cluster.lines.find((line) => /^Freeway listening/.test(line.msg))?.msg).to.include('2 workers; rate limits and health in the primary process');

    const client = { 'x-forwarded-for': '203.0.113.7' };
    const replies = await Promise.all(Array.from({ length: 20 }, () => fresh(cluster.url, '/v1/models', { headers: client })));
    const statuses = replies.map((reply) => reply.status);
    expect(statuses.filter((status) => status === 200), statuses.join(' ')).to.have.length(5);
    expect(statuses.filter((status) => status === 429)).to.have.length(15);
    for (const reply of replies.filter((r) => r.status === 429)) expect(Number(reply.headers['retry-after'])).to.be.within(1, 60);

    // Sequential requests after the burst: still refused on every worker.
    for (let i = 0; i < 4; i++) expect((await fresh(cluster.url, '/v1/models', { headers: client })).status).to.equal(429);
    await cluster.waitFor(/^GET \/v1\/models (200|429)/, 24);
    expect(servedBy(cluster, /^GET \/v1\/models (200|429)/).size, 'both workers served').to.equal(2);

    // Another client has a window of its own.
    expect((await fresh(cluster.url, '/v1/models', { headers: { 'x-forwarded-for': '203.0.113.8' } })).status).to.equal(200);
  });

  it('WORKERS=2: the primary keeps at most RATE_LIMIT_MAX_CLIENTS windows; a new client evicts the least recently seen', async () => {
    const cluster = await startCluster({ WORKERS: '2', RATE_LIMIT_MAX: '1', RATE_LIMIT_MAX_CLIENTS: '3' });
    const status = async (ip: string): Promise<number> => (await fresh(cluster.url, '/v1/nope', { headers: { 'x-forwarded-for': ip } })).status;
    expect([await status('192.0.2.121'), await status('192.0.2.121')]).to.deep.equal([404, 429]);
    expect([await status('192.0.2.122'), await status('192.0.2.123'), await status('192.0.2.124')]).to.deep.equal([404, 404, 404]);
    // The first client was the least recently seen of four: the primary let its window go.
    expect(await status('192.0.2.121')).to.equal(404);
    expect(await status('192.0.2.124')).to.equal(429);
  });

  it('WORKERS=2: MAX_CONNECTIONS holds in each worker; past it connections are closed as they arrive, not parked in the primary', async () => {
    const cluster = await startCluster({ WORKERS: '2', MAX_CONNECTIONS: '3' });
    const port = Number(new URL(cluster.url).port);
    let closedByFreeway = 0;
    const sockets = Array.from({ length: 12 }, () => {
      const socket = connect(port, '127.0.0.1');
      socket.on('error', () => {});
      // Part of a request, then nothing: each held connection waits for the rest of its headers.
      socket.once('connect', () => socket.write('GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n'));
      socket.once('close', () => (closedByFreeway += 1));
      return socket;
    });
    const deadline = Date.now() + 5_000;
    while (closedByFreeway < 6 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
    await new Promise((resolve) => setTimeout(resolve, 200));
    // At most three per worker are kept (the primary hands them out in turn, so nearly always
    // six of twelve). Node's own maxConnections would have closed none: the primary offers each
    // refused connection to a worker again and again.
    const closed = closedByFreeway;
    expect(closed).to.be.within(6, 9);
    expect(sockets.filter((socket) => !socket.destroyed)).to.have.length(12 - closed);
    await cluster.waitFor(/^MAX_CONNECTIONS \(3\) connections are open/);
    for (const socket of sockets) socket.destroy();
    // Room again: the metrics, summed over both workers, count them. Until a worker has seen the
    // held connections close it is still full, and drops a scrape's connection too: those count.
    let droppedScrapes = 0;
    let scraped = '';
    const counted = (): RegExp => new RegExp(`^freeway_connections_dropped_total ${closed + droppedScrapes}$`, 'm');
    while (!counted().test(scraped) && Date.now() < deadline + 5_000) {
      scraped = await fresh(cluster.url, '/metrics').then(
        (reply) => reply.body,
        () => {
          droppedScrapes += 1;
          return '';
        },
      );
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(scraped).to.match(counted());
  });

  it('WORKERS=2: a 429 one worker saw makes every worker report and skip that key', async () => {
    const cluster = await startCluster({ WORKERS: '2' });
    upstream.handle(faults.rateLimited(50));
    const first = await chat(cluster.url, keyHeaders('groq'));
    // The key only rests, for longer than MAX_WAIT_MS: a 429.
    expect(first.status).to.equal(429);
    expect(upstream.requests).to.have.length(1);

    const healths = await Promise.all(Array.from({ length: 8 }, () => fresh(cluster.url, '/health', { headers: keyHeaders('groq') })));
    for (const reply of healths) {
      const groq = (JSON.parse(reply.body) as { providers: Record<string, { state: string; retryAfter?: number }> }).providers.groq;
      expect(groq?.state).to.equal('rate_limited');
      expect(groq?.retryAfter).to.be.within(45, 50);
    }
    const again = await Promise.all(Array.from({ length: 6 }, () => chat(cluster.url, keyHeaders('groq'))));
    for (const reply of again) expect(reply.status).to.equal(429);
    expect(upstream.requests, 'no worker tried the rate-limited key again').to.have.length(1);
    await cluster.waitFor(/^GET \/health 200/, 8);
    expect(servedBy(cluster, /^(GET \/health|POST \/v1\/chat\/completions) /).size, 'both workers served').to.equal(2);
  });

  it('WORKERS=2: the keys of one header take turns through the primary, whichever worker serves', async () => {
    // Priority routing: exploration would now and then start with another model, which has turns of its own.
    const cluster = await startCluster({ WORKERS: '2', ROUTING: 'priority' });
    const keys = { 'X-Groq-Key': 'gsk_ClusterKeyOne0123456789abcdef, gsk_ClusterKeyTwo0123456789abcdef' };
    for (let i = 0; i < 10; i++) expect((await chat(cluster.url, keys)).status).to.equal(200);
    // Turns kept in each worker would give both workers key 1 on their first request.
    const seen = upstream.requests.map((req) => (String(req.headers.authorization).includes('KeyOne') ? 1 : 2));
    expect(seen, cluster.output.join('')).to.deep.equal([1, 2, 1, 2, 1, 2, 1, 2, 1, 2]);
    await cluster.waitFor(/^POST \/v1\/chat\/completions 200/, 10);
    expect(servedBy(cluster, /^POST \/v1\/chat\/completions 200/).size, 'both workers served').to.equal(2);
  });

  it('WORKERS=2: a conversation keeps its model through the primary, whichever worker serves its turns', async () => {
    const nvidia = await startUpstream(faults.ok('from nvidia'));
    try {
      // Under quality routing (the default) NVIDIA's models rank above Groq's; the first turn, routed by
      // priority, is answered by Groq, and every later turn stays there.
      const cluster = await startCluster({ WORKERS: '2', NVIDIA_BASE_URL: nvidia.url, ROUTING_EXPLORE_SHARE: '0' });
      const keys = keyHeaders('groq', 'nvidia');
      const first = await chat(cluster.url, { ...keys, 'X-Freeway-Routing': 'priority' });
      expect(first.status, first.body).to.equal(200);
      const answered = first.headers['x-freeway-model'];
      expect(answered).to.match(/^groq\//);
      const later = await Promise.all(
        Array.from({ length: 8 }, (_, turn) =>
          chat(cluster.url, keys, { messages: [{ role: 'user', content: 'Say hello' }, { role: 'assistant', content: 'Hello' }, { role: 'user', content: `Turn ${turn}` }] }),
        ),
      );
      for (const reply of later) expect(reply.headers['x-freeway-model'], cluster.output.join('')).to.equal(answered);
      expect(nvidia.requests).to.have.length(0);
      const other = await chat(cluster.url, keys, { messages: [{ role: 'user', content: 'Another conversation' }] });
      expect(other.headers['x-freeway-model']).to.match(/^nvidia\//);
      await cluster.waitFor(/^POST \/v1\/chat\/completions 200/, 10);
      expect(servedBy(cluster, /^POST \/v1\/chat\/completions 200/).size, 'both workers served').to.equal(2);
    } finally {
      await nvidia.close();
    }
  });

  it('WORKERS=2: usage per key is counted in the primary, whichever worker serves; every worker shows it', async () => {
    const cluster = await startCluster({ WORKERS: '2' });
    const key = { 'X-Groq-Key': 'gsk_ClusterUsageKey0123456789abcdef' };
    for (let i = 0; i < 8; i++) expect((await chat(cluster.url, key, { model: 'groq/openai/gpt-oss-120b' })).status).to.equal(200);
    await cluster.waitFor(/^POST \/v1\/chat\/completions 200/, 8);
    expect(servedBy(cluster, /^POST \/v1\/chat\/completions 200/).size, 'both workers served').to.equal(2);
    const usageOf = async (): Promise<unknown> => {
      const body = JSON.parse((await fresh(cluster.url, '/v1/providers', { headers: key })).body) as { data: Array<{ id: string; keys?: Array<{ usage?: { days: Array<{ models: unknown[] }> } }> }> };
      return body.data.find((entry) => entry.id === 'groq')?.keys?.[0]?.usage?.days[0]?.models;
    };
    const expected = [{ model: 'groq/openai/gpt-oss-120b', requests: 8, answers: 8, failures: {}, inputTokens: 56, outputTokens: 24, cacheHits: 0 }];
    // The worker that answers writes its own counts first; the other's arrive within 100 ms.
    const deadline = Date.now() + 5_000;
    let seen = await usageOf();
    while (JSON.stringify(seen) !== JSON.stringify(expected) && Date.now() < deadline) {
      await sleep(50);
      seen = await usageOf();
    }
    expect(seen).to.deep.equal(expected);
    const shown = await Promise.all(Array.from({ length: 6 }, () => usageOf()));
    for (const models of shown) expect(models).to.deep.equal(expected);
  });

  it('restarts a worker that dies, and the shared state survives it', async () => {
    const cluster = await startCluster({ WORKERS: '2', RATE_LIMIT_MAX: '2' });
    const client = { 'x-forwarded-for': '203.0.113.20' };
    for (let i = 0; i < 3; i++) await fresh(cluster.url, '/v1/models', { headers: client });
    const [victim] = cluster.workerPids();
    process.kill(victim as number, 'SIGKILL');
    await cluster.waitFor(/exited \(signal SIGKILL\); starting another/);
    await cluster.waitFor(/^worker listening/, 3);
    expect(cluster.workerPids()).to.have.length(3);
    const after = await Promise.all(Array.from({ length: 6 }, () => fresh(cluster.url, '/v1/models', { headers: client })));
    expect(after.map((reply) => reply.status)).to.deep.equal([429, 429, 429, 429, 429, 429]);
  });

  it('SIGTERM drains every worker (an in-flight stream finishes) and the primary exits 0', async () => {
    upstream.handle(faults.trickle(6, 80));
    const cluster = await startCluster({ WORKERS: '2' });
    const workers = cluster.workerPids();
    const stream = chat(cluster.url, keyHeaders('groq'), { stream: true });
    while (upstream.requests.length === 0) await sleep(10);
    cluster.proc.kill('SIGTERM');
    const reply = await stream;
    expect(reply.status).to.equal(200);
    expect(reply.body.trimEnd().endsWith('data: [DONE]')).to.equal(true);
    expect(await cluster.exited).to.equal(0);
    expect(cluster.lines.filter((line) => /draining in-flight requests/.test(line.msg))).to.have.length(2);
    for (const pid of workers) expect(alive(pid), `worker ${pid} is gone`).to.equal(false);
  });

  it('SIGINT to the whole process group (Ctrl-C) drains once and exits 0', async () => {
    const cluster = await startCluster({ WORKERS: '2' });
    const workers = cluster.workerPids();
    // The terminal signals every process; the primary's stop request must not count as a second signal.
    for (const pid of [cluster.primaryPid, ...workers]) process.kill(pid, 'SIGINT');
    expect(await cluster.exited).to.equal(0);
    expect(cluster.lines.filter((line) => /again: exiting now/.test(line.msg))).to.have.length(0);
  });

  it('WORKERS=auto starts one worker per core', async () => {
    const cores = availableParallelism();
    const cluster = await startCluster({ WORKERS: 'auto' });
    expect(cluster.workerPids()).to.have.length(cores);
    expect(cluster.lines.find((line) => /^Freeway listening/.test(line.msg))?.msg).to.include(`(${cores} workers;`);
    cluster.proc.kill('SIGTERM');
    expect(await cluster.exited).to.equal(0);
  });

  it('WORKERS=2 with OTEL_TRACES_EXPORTER=otlp: every worker sends its own spans, and SIGTERM sends what is still pending', async () => {
    const receiver = await startOtlpReceiver();
    try {
      // Spans wait ten minutes for their batch: only the shutdown can send them within the test.
      const cluster = await startCluster({ WORKERS: '2', OTEL_TRACES_EXPORTER: 'otlp', OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json', OTEL_BSP_SCHEDULE_DELAY: '600000' });
      const served = /^POST \/v1\/chat\/completions 200/;
      const traceIds = new Set<string>();
      for (let i = 1; i <= 40 && servedBy(cluster, served).size < 2; i++) {
        const reply = await chat(cluster.url, keyHeaders('groq'));
        expect(reply.status, reply.body).to.equal(200);
        traceIds.add(String(reply.headers['x-freeway-trace-id']));
        await cluster.waitFor(served, i);
      }
      expect(servedBy(cluster, served).size, 'both workers served').to.equal(2);
      expect(receiver.spans).to.deep.equal([]);
      cluster.proc.kill('SIGTERM');
      expect(await cluster.exited).to.equal(0);
      const requests = receiver.spans.filter((span) => span.kind === 2);
      expect(new Set(requests.map((span) => span.traceId))).to.deep.equal(traceIds);
      expect(new Set(requests.map((span) => span.resource['process.pid']))).to.deep.equal(new Set(cluster.workerPids()));
      expect(receiver.spans.filter((span) => span.kind === 3)).to.have.length(traceIds.size);
    } finally {
      await receiver.close();
    }
  });

  it('WORKERS=1 (the default) runs no cluster: one process, as before', async () => {
    const cluster = await startCluster({});
    expect(cluster.lines.some((line) => line.pid !== undefined)).to.equal(false);
    expect(cluster.lines.some((line) => /^worker listening/.test(line.msg))).to.equal(false);
    expect((await fresh(cluster.url, '/health')).status).to.equal(200);
    cluster.proc.kill('SIGTERM');
    expect(await cluster.exited).to.equal(0);
  });

  it('REDIS_URL without KEY_HASH_SECRET: exits 1 at start with a clear message', async () => {
    const proc = spawn(process.execPath, [mainScript], {
      env: { ...process.env, PORT: '0', HOST: '127.0.0.1', WORKERS: '2', REDIS_URL: 'redis://127.0.0.1:1', KEY_HASH_SECRET: '' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    proc.stderr.setEncoding('utf8');
    proc.stderr.on('data', (text: string) => (stderr += text));
    const [code] = await once(proc, 'exit');
    expect(code).to.equal(1);
    expect(stderr).to.match(/^Freeway cannot start: KEY_HASH_SECRET .* is required when REDIS_URL is set\n$/);
  });

  it('a worker whose primary does not answer within 1 s lets requests through and keeps health locally, without waiting again', async () => {
    const child = fork(fileURLToPath(new URL('../support/worker-stores.ts', import.meta.url)), [], { stdio: ['ignore', 'pipe', 'inherit', 'ipc'] });
    let output = '';
    child.stdout?.setEncoding('utf8');
    child.stdout?.on('data', (text: string) => (output += text));
    let answering = true;
    const seen: string[] = [];
    const results: Array<{ result?: unknown; ms?: number; ready?: boolean }> = [];
    const wakers: Array<() => void> = [];
    child.on('message', (message: { freeway?: string; seq?: number; call?: { op: string }; result?: unknown; ready?: boolean }) => {
      if (message.freeway === 'store') {
        seen.push(message.call?.op ?? '');
        // Playing the primary: this client is already at 7 hits in its window.
        if (answering) child.send({ freeway: 'store', seq: message.seq, value: message.call?.op === 'rl.increment' ? { totalHits: 7, resetTime: Date.now() + 9_000 } : null });
        return;
      }
      results.push(message);
      wakers.shift()?.();
    });
    const nextResult = async (): Promise<{ result?: unknown; ms?: number; ready?: boolean }> => {
      while (results.length === 0) await new Promise<void>((resolve) => wakers.push(resolve));
      return results.shift() as { result?: unknown; ms?: number; ready?: boolean };
    };
    try {
      expect((await nextResult()).ready).to.equal(true);
      child.send({ cmd: 'increment' });
      expect((await nextResult()).result, 'the primary answered').to.equal(7);

      answering = false;
      child.send({ cmd: 'increment' });
      const open = await nextResult();
      expect(open.result, 'failed open').to.equal(1);
      expect(open.ms).to.be.within(900, 1_500);
      // Then calls stop waiting for the silent primary for a while.
      child.send({ cmd: 'record' });
      const recorded = await nextResult();
      expect(recorded.result).to.equal('rate_limited');
      expect(recorded.ms).to.be.below(100);
      child.send({ cmd: 'get' });
      expect((await nextResult()).result, 'health kept in the worker meanwhile').to.equal('rate_limited');
      expect(seen).to.deep.equal(['rl.increment', 'rl.increment']);
      // The worker's log is written asynchronously.
      for (let i = 0; i < 100 && !/Provider health kept/.test(output); i++) await sleep(20);
      expect(output).to.match(/Rate limit not enforced: the cluster primary did not answer/);
      expect(output).to.match(/Provider health kept in this process's memory: the cluster primary did not answer/);
    } finally {
      child.kill('SIGKILL');
    }
  });

  describe('with REDIS_URL', () => {
    let redis: RunningRedis | undefined;
    before(async function () {
      skipWithoutRedis(this);
      redis = await startRedis();
    });
    after(() => redis?.kill());

    it('WORKERS=2 share the window through Redis: exactly RATE_LIMIT_MAX of 20 get through', async () => {
      const url = (redis as RunningRedis).url;
      const cluster = await startCluster({ WORKERS: '2', RATE_LIMIT_MAX: '5', REDIS_URL: url, KEY_HASH_SECRET: 'cluster-test-secret-0123456789' });
      expect(cluster.lines.find((line) => /^Freeway listening/.test(line.msg))?.msg).to.include('rate limits and health in Redis');
      await cluster.waitFor(/^Redis connected/, 2);
      const client = { 'x-forwarded-for': '203.0.113.30' };
      const replies = await Promise.all(Array.from({ length: 20 }, () => fresh(cluster.url, '/v1/models', { headers: client })));
      expect(replies.filter((reply) => reply.status === 200)).to.have.length(5);
      expect(replies.filter((reply) => reply.status === 429)).to.have.length(15);
      await cluster.waitFor(/^GET \/v1\/models (200|429)/, 20);
      expect(servedBy(cluster, /^GET \/v1\/models (200|429)/).size, 'both workers served').to.equal(2);
      const peek = new Redis(url);
      try {
        expect(await peek.zcard('freeway:rl:203.0.113.30')).to.equal(5);
      } finally {
        peek.disconnect();
      }
      cluster.proc.kill('SIGTERM');
      expect(await cluster.exited).to.equal(0);
    });
  });
});
