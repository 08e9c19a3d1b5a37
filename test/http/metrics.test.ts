import { expect } from 'chai';
import { spawn, type ChildProcess } from 'node:child_process';
import { request } from 'node:http';
import { startFreeway, providerPlugins, type RunningFreeway } from '../support/freeway.ts';
import { faults } from '../support/faults.ts';
import { hello, postChat } from '../support/http.ts';
import { keyHeaders, testKeys } from '../support/keys.ts';
import { freePort, freewayBin, repoRoot, waitForHealth } from '../support/process.ts';
import { openAIError, startUpstream, type FakeUpstream } from '../support/upstream.ts';

interface Sample {
  readonly name: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly value: number;
}

interface Exposition {
  readonly types: ReadonlyMap<string, string>;
  readonly samples: readonly Sample[];
}

const metricName = '[a-zA-Z_:][a-zA-Z0-9_:]*';
const labelPair = `([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\\\\\n]|\\\\[\\\\"n])*)"`;
const sampleLine = new RegExp(`^(${metricName})(?:\\{((?:${labelPair})(?:,${labelPair})*)?,?\\})? (-?[0-9.e+-]+|NaN|\\+Inf|-Inf)( -?[0-9]+)?$`);
const typeLine = new RegExp(`^# TYPE (${metricName}) (counter|gauge|histogram|summary|untyped)$`);
const helpLine = new RegExp(`^# HELP (${metricName}) .*$`);

/** A strict reader of Prometheus's text format 0.0.4: every line must be HELP, TYPE or a sample of a declared family. */
function parseExposition(text: string): Exposition {
  const types = new Map<string, string>();
  const samples: Sample[] = [];
  for (const line of text.split('\n')) {
    if (line === '') continue;
    if (line.startsWith('#')) {
      const type = typeLine.exec(line);
      if (type) {
        expect(types.has(type[1] as string), `TYPE of ${type[1]} given twice`).to.equal(false);
        types.set(type[1] as string, type[2] as string);
      } else expect(line, 'a comment line').to.match(helpLine);
      continue;
    }
    const match = sampleLine.exec(line);
    expect(match, `not a sample line: ${line}`).to.not.equal(null);
    const name = (match as RegExpExecArray)[1] as string;
    const family = [...types.keys()].find((base) => name === base || (types.get(base) === 'histogram' && /^(.*)_(bucket|sum|count)$/.exec(name)?.[1] === base));
    expect(family, `sample ${name} has no TYPE line before it`).to.not.equal(undefined);
    const labels: Record<string, string> = {};
    for (const pair of ((match as RegExpExecArray)[2] ?? '').matchAll(new RegExp(labelPair, 'g'))) labels[pair[1] as string] = pair[2] as string;
    samples.push({ name, labels, value: Number((match as RegExpExecArray).at(-2)) });
  }
  return { types, samples };
}

const find = (exposition: Exposition, name: string, labels: Record<string, string> = {}): Sample[] =>
  exposition.samples.filter((sample) => sample.name === name && Object.entries(labels).every(([key, value]) => sample.labels[key] === value));

const valueOf = (exposition: Exposition, name: string, labels: Record<string, string> = {}): number =>
  find(exposition, name, labels).reduce((sum, sample) => sum + sample.value, 0);

async function scrape(url: string): Promise<{ status: number; contentType: string | null; exposition: Exposition; text: string }> {
  const res = await fetch(`${url}/metrics`);
  const text = await res.text();
  return { status: res.status, contentType: res.headers.get('content-type'), exposition: res.status === 200 ? parseExposition(text) : { types: new Map(), samples: [] }, text };
}

describe('GET /metrics (Prometheus text format)', () => {
  let upstream: FakeUpstream;
  let freeway: RunningFreeway;
  before(async () => {
    upstream = await startUpstream();
    freeway = await startFreeway({ env: { GROQ_BASE_URL: upstream.url, CEREBRAS_BASE_URL: upstream.url } });
  });
  after(async () => {
    await freeway.close();
    await upstream.close();
  });

  it('declares every Freeway metric with its type', async () => {
    const { status, contentType, exposition } = await scrape(freeway.url);
    expect(status).to.equal(200);
    expect(contentType).to.match(/^text\/plain; version=0\.0\.4/);
    expect(Object.fromEntries([...exposition.types].filter(([name]) => name.startsWith('freeway_')))).to.deep.equal({
      freeway_http_requests_total: 'counter',
      freeway_upstream_attempts_total: 'counter',
      freeway_time_to_first_token_seconds: 'histogram',
      freeway_request_duration_seconds: 'histogram',
      freeway_rate_limited_total: 'counter',
      freeway_connections_dropped_total: 'counter',
      freeway_requests_in_flight: 'gauge',
      freeway_streams_in_flight: 'gauge',
      freeway_provider_keys: 'gauge',
      freeway_model_listings_total: 'counter',
      freeway_models_quarantined_total: 'counter',
      freeway_cache_lookups_total: 'counter',
      freeway_cache_evictions_total: 'counter',
      freeway_requests_held: 'gauge',
      freeway_wait_seconds: 'histogram',
    });
  });

  it('counts requests by route and status, attempts by provider and outcome, and times first tokens and answers by provider', async () => {
    const before = (await scrape(freeway.url)).exposition;
    upstream.handle(faults.ok('Hello'));
    expect((await postChat(freeway.url, hello('groq/llama-3.3-70b-versatile'), keyHeaders('groq'))).status).to.equal(200);
    expect((await postChat(freeway.url, hello('groq/llama-3.3-70b-versatile', { stream: true }), keyHeaders('groq'))).status).to.equal(200);
    upstream.handle((_req, res) => openAIError(res, 503, 'Service unavailable'));
    expect((await postChat(freeway.url, hello('cerebras/llama-3.3-70b'), keyHeaders('cerebras'))).status).to.equal(502);
    expect((await fetch(`${freeway.url}/v1/nope`)).status).to.equal(404);

    const after = (await scrape(freeway.url)).exposition;
    const moved = (name: string, labels: Record<string, string>): number => valueOf(after, name, labels) - valueOf(before, name, labels);
    expect(moved('freeway_http_requests_total', { route: '/v1/chat/completions', status: '200' })).to.equal(2);
    expect(moved('freeway_http_requests_total', { route: '/v1/chat/completions', status: '502' })).to.equal(1);
    expect(moved('freeway_http_requests_total', { route: 'unmatched', status: '404' })).to.equal(1);
    expect(moved('freeway_http_requests_total', { route: '/metrics', status: '200' })).to.equal(1);
    expect(moved('freeway_upstream_attempts_total', { provider: 'groq', outcome: 'ok' })).to.equal(2);
    expect(moved('freeway_upstream_attempts_total', { provider: 'cerebras', outcome: 'server_error' })).to.equal(1);
    expect(moved('freeway_time_to_first_token_seconds_count', { provider: 'groq' })).to.equal(2);
    expect(moved('freeway_request_duration_seconds_count', { provider: 'groq' })).to.equal(2);
    expect(valueOf(after, 'freeway_time_to_first_token_seconds_bucket', { provider: 'groq', le: '+Inf' })).to.equal(valueOf(after, 'freeway_time_to_first_token_seconds_count', { provider: 'groq' }));
    // The scrape itself is the one request in flight.
    expect(valueOf(after, 'freeway_requests_in_flight')).to.equal(1);
    expect(valueOf(after, 'freeway_streams_in_flight')).to.equal(0);
    // Keys by health state: counts per provider, never a key.
    expect(valueOf(after, 'freeway_provider_keys', { provider: 'groq', state: 'healthy' })).to.equal(1);
    expect(valueOf(after, 'freeway_provider_keys', { provider: 'cerebras', state: 'healthy' })).to.equal(1);
  });

  it('counts the requests and streams in flight as they start and end, in any order', async () => {
    upstream.handle(faults.hangMidStream());
    const callers = [new AbortController(), new AbortController(), new AbortController()];
    const streams = await Promise.all(
      callers.map((caller) =>
        fetch(`${freeway.url}/v1/chat/completions`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', ...keyHeaders('groq') },
          body: JSON.stringify(hello('groq/llama-3.3-70b-versatile', { stream: true })),
          signal: caller.signal,
        }),
      ),
    );
    for (const stream of streams) expect(stream.headers.get('content-type')).to.match(/^text\/event-stream/);
    const inFlight = async (): Promise<[number, number]> => {
      const { exposition } = await scrape(freeway.url);
      return [valueOf(exposition, 'freeway_requests_in_flight'), valueOf(exposition, 'freeway_streams_in_flight')];
    };
    const until = async (wanted: [number, number]): Promise<void> => {
      const deadline = Date.now() + 10_000;
      let seen = await inFlight();
      while ((seen[0] !== wanted[0] || seen[1] !== wanted[1]) && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 20));
        seen = await inFlight();
      }
      expect(seen).to.deep.equal(wanted);
    };
    // Each scrape is a request in flight of its own.
    await until([4, 3]);
    // The middle one ends first, then the last, then the first.
    for (const [index, left] of [[1, 2], [2, 1], [0, 0]] as const) {
      (callers[index] as AbortController).abort();
      await until([left + 1, left]);
    }
  });

  it('shows keys by health state as they change: a rate-limited key moves from healthy to rate_limited', async () => {
    upstream.handle((_req, res) => openAIError(res, 429, 'Rate limit reached', { 'retry-after': '30' }));
    const key = { 'X-Groq-Key': 'gsk_MetricsStateKey0123456789abcdefABCD' };
    expect((await postChat(freeway.url, hello('groq/llama-3.3-70b-versatile'), key)).status).to.equal(429);
    const { exposition } = await scrape(freeway.url);
    expect(valueOf(exposition, 'freeway_provider_keys', { provider: 'groq', state: 'rate_limited' })).to.equal(1);
    expect(valueOf(exposition, 'freeway_upstream_attempts_total', { provider: 'groq', outcome: 'rate_limited' })).to.be.at.least(1);
  });

  it('puts no key, no hash of a key and no caller-made path or model id in any label', async () => {
    upstream.handle(faults.ok('Hello'));
    const keys = keyHeaders(...Object.keys(testKeys));
    await postChat(freeway.url, hello('free:auto'), keys);
    await postChat(freeway.url, hello('groq/made-up-model-a1b2c3'), keys);
    await fetch(`${freeway.url}/v1/${testKeys.groq}`);
    const { text, exposition } = await scrape(freeway.url);
    for (const key of Object.values(testKeys)) for (const part of key.split(':')) expect(text).to.not.include(part);
    expect(text).to.not.include('made-up-model');
    const providers = new Set((await providerPlugins()).map((plugin) => plugin.id));
    const allowed: Record<string, (value: string) => boolean> = {
      provider: (value) => providers.has(value),
      state: (value) => ['healthy', 'rate_limited', 'down', 'half_open', 'invalid_key', 'no_credit'].includes(value),
      scope: (value) => ['key', 'provider'].includes(value),
      route: (value) => value === 'unmatched' || value.startsWith('/'),
      status: (value) => /^\d{3}$/.test(value),
      outcome: (value) => /^[a-z_]+$/.test(value),
      le: (value) => /^[0-9.+Inf]+$/.test(value),
    };
    for (const sample of exposition.samples.filter((one) => one.name.startsWith('freeway_'))) {
      for (const [label, value] of Object.entries(sample.labels)) {
        expect(allowed[label], `unexpected label ${label} on ${sample.name}`).to.be.a('function');
        expect(allowed[label]?.(value), `${sample.name}{${label}="${value}"}`).to.equal(true);
        // An HMAC of a key is 43 base64url characters: nothing of the kind may appear.
        expect(value).to.not.match(/[A-Za-z0-9_-]{20,}/);
      }
    }
  });

  it('counts refusals of the per-client rate limit', async () => {
    const limited = await startFreeway({ env: { RATE_LIMIT_MAX: '1' } });
    try {
      await fetch(`${limited.url}/v1/models`);
      expect((await fetch(`${limited.url}/v1/models`)).status).to.equal(429);
      expect((await fetch(`${limited.url}/v1/models`)).status).to.equal(429);
      const { exposition } = await scrape(limited.url);
      expect(valueOf(exposition, 'freeway_rate_limited_total')).to.equal(2);
      expect(valueOf(exposition, 'freeway_http_requests_total', { route: '/v1/models', status: '429' })).to.equal(2);
    } finally {
      await limited.close();
    }
  });

  it('METRICS=off: there is no /metrics', async () => {
    const off = await startFreeway({ env: { METRICS: 'off' } });
    try {
      const res = await fetch(`${off.url}/metrics`);
      expect(res.status).to.equal(404);
      expect(((await res.json()) as { error: { type: string } }).error.type).to.equal('invalid_request_error');
    } finally {
      await off.close();
    }
  });
});

describe('/metrics of a running Freeway: METRICS_PORT, and WORKERS > 1 summed by the primary', function () {
  this.timeout(40_000);
  let upstream: FakeUpstream;
  let child: ChildProcess | undefined;
  before(async () => {
    upstream = await startUpstream();
  });
  afterEach(async () => {
    if (child && child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((resolve) => child?.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    }
    child = undefined;
  });
  after(() => upstream.close());

  async function run(env: Record<string, string>): Promise<{ port: number }> {
    const port = await freePort();
    let output = '';
    child = spawn(process.execPath, [freewayBin], {
      cwd: repoRoot,
      env: { ...process.env, HOST: '127.0.0.1', PORT: String(port), GROQ_BASE_URL: upstream.url, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout?.on('data', (text: Buffer) => (output += text.toString()));
    child.stderr?.on('data', (text: Buffer) => (output += text.toString()));
    await waitForHealth(child, port, () => output);
    // The primary's scrape asks every worker: one still starting would answer only after prom-client's 5 s.
    const workers = Number(env.WORKERS ?? '1');
    const deadline = Date.now() + 20_000;
    while (workers > 1 && (output.match(/worker listening on/g) ?? []).length < workers) {
      if (Date.now() > deadline) throw new Error(`not every worker listened within 20 s:\n${output}`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    return { port };
  }

  /** One request on a connection of its own, so that the cluster can hand it to any worker. */
  const freshGet = (url: string): Promise<number> =>
    new Promise((resolve, reject) => {
      const req = request(url, { agent: false, headers: { connection: 'close' } }, (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      });
      req.on('error', reject);
      req.end();
    });

  it('METRICS_PORT serves /metrics on its own listener (METRICS_HOST, 127.0.0.1 by default), and not on the main port', async () => {
    const metricsPort = await freePort();
    const { port } = await run({ METRICS_PORT: String(metricsPort) });
    expect(await freshGet(`http://127.0.0.1:${port}/health`)).to.equal(200);
    expect((await fetch(`http://127.0.0.1:${port}/metrics`)).status).to.equal(404);
    const { status, exposition } = await scrape(`http://127.0.0.1:${metricsPort}`);
    expect(status).to.equal(200);
    expect(valueOf(exposition, 'freeway_http_requests_total', { route: '/health', status: '200' })).to.be.at.least(1);
    // Node's process metrics come along.
    expect(find(exposition, 'process_resident_memory_bytes')).to.have.length(1);
    expect((await fetch(`http://127.0.0.1:${metricsPort}/other`)).status).to.equal(404);
  });

  it('WORKERS=2: /metrics on the main port adds up every worker', async () => {
    const { port } = await run({ WORKERS: '2' });
    const base = `http://127.0.0.1:${port}`;
    const requests = 20;
    for (let i = 0; i < requests; i++) expect(await freshGet(`${base}/v1/models`)).to.equal(200);
    const { status, exposition, text } = await scrape(base);
    expect(status, text).to.equal(200);
    // waitForHealth's own requests come on top.
    expect(valueOf(exposition, 'freeway_http_requests_total', { route: '/v1/models', status: '200' })).to.equal(requests);
    expect(valueOf(exposition, 'freeway_http_requests_total', { route: '/health', status: '200' })).to.be.at.least(1);
  });
});
