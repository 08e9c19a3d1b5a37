import { expect } from 'chai';
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { request } from 'node:http';
import { fileURLToPath } from 'node:url';
import { startFreeway, type RunningFreeway } from '../support/freeway.ts';
import { faults } from '../support/faults.ts';
import { hello, postChat } from '../support/http.ts';
import { sseEvents } from '../support/sse.ts';
import { keyHeaders } from '../support/keys.ts';
import { startUpstream, type FakeUpstream, type UpstreamHandler } from '../support/upstream.ts';

const mainScript = fileURLToPath(new URL('../../server/main.ts', import.meta.url));

/** Wraps a handler to resolve `closed` when Freeway drops the upstream request. */
function watchClose(handler: UpstreamHandler): { handler: UpstreamHandler; closed: Promise<number> } {
  let resolve!: (at: number) => void;
  const closed = new Promise<number>((r) => (resolve = r));
  return {
    closed,
    handler: (req, res) => {
      res.once('close', () => resolve(performance.now()));
      return handler(req, res);
    },
  };
}

/** Sends a chat request and resolves with the response once its first body bytes arrive. */
function openChat(url: string, body: unknown, headers: Record<string, string>) {
  return new Promise<{ req: ReturnType<typeof request>; firstChunk: string; rest: Promise<string> }>((resolve, reject) => {
    const req = request(`${url}/v1/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers } }, (res) => {
      res.setEncoding('utf8');
      let text = '';
      let first = true;
      const rest = new Promise<string>((done) => {
        res.on('end', () => done(text));
        res.on('error', () => done(text));
        res.on('close', () => done(text));
      });
      res.on('data', (chunk: string) => {
        text += chunk;
        if (first) {
          first = false;
          resolve({ req, firstChunk: chunk, rest });
        }
      });
    });
    req.on('error', reject);
    req.end(JSON.stringify(body));
  });
}

describe('client disconnects', () => {
  let upstream: FakeUpstream;
  let freeway: RunningFreeway;
  before(async () => {
    upstream = await startUpstream();
    freeway = await startFreeway({ env: { GROQ_BASE_URL: upstream.url } });
  });
  after(async () => {
    await freeway.close();
    await upstream.close();
  });

  it('a client leaving mid-stream aborts the upstream stream', async () => {
    const watched = watchClose(faults.trickle(50, 50));
    upstream.handle(watched.handler);
    const { req } = await openChat(freeway.url, hello('free:auto', { stream: true }), keyHeaders('groq'));
    const left = performance.now();
    req.destroy();
    const closedAt = await watched.closed;
    expect(closedAt - left).to.be.below(500);
  });

  it('a client leaving before the first token aborts the upstream request', async () => {
    const watched = watchClose(faults.hangBeforeHeaders());
    upstream.handle(watched.handler);
    upstream.requests.length = 0;
    const controller = new AbortController();
    const pending = fetch(`${freeway.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...keyHeaders('groq') },
      body: JSON.stringify(hello('free:auto')),
      signal: controller.signal,
    }).catch((error: Error) => error);
    while (upstream.requests.length === 0) await new Promise((r) => setTimeout(r, 10));
    const left = performance.now();
    controller.abort();
    expect(await pending).to.be.instanceOf(Error);
    const closedAt = await watched.closed;
    expect(closedAt - left).to.be.below(500);
    // Freeway is still fine afterwards.
    upstream.handle(faults.ok('still here'));
    const res = await postChat(freeway.url, hello('free:auto'), keyHeaders('groq'));
    expect(res.json.choices[0].message.content).to.equal('still here');
  });
});

describe('process lifecycle (server/main.ts)', function () {
  this.timeout(15_000);
  let upstream: FakeUpstream;
  let child: ChildProcess | undefined;
  before(async () => {
    upstream = await startUpstream();
  });
  afterEach(() => {
    child?.kill('SIGKILL');
    child = undefined;
  });
  after(() => upstream.close());

  async function startMain(env: Record<string, string> = {}): Promise<{ url: string; output: string[]; exited: Promise<number | null> }> {
    const proc = spawn(process.execPath, [mainScript], {
      env: { ...process.env, PORT: '0', HOST: '127.0.0.1', GROQ_BASE_URL: upstream.url, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child = proc;
    const output: string[] = [];
    const exited = once(proc, 'exit').then(([code]) => code as number | null);
    const url = await new Promise<string>((resolve, reject) => {
      proc.stdout.setEncoding('utf8');
      proc.stdout.on('data', (text: string) => {
        output.push(text);
        const match = /listening on (http:\/\/[\d.]+:\d+)/.exec(text);
        if (match?.[1]) resolve(match[1]);
      });
      proc.stderr.on('data', (text: Buffer) => output.push(text.toString()));
      proc.once('exit', () => reject(new Error(`server exited early: ${output.join('')}`)));
    });
    return { url, output, exited };
  }

  it('warns at start-up of every <ID>_BASE_URL in effect: OLLAMA_BASE_URL set for a local Ollama never sends cloud calls there unnoticed', async () => {
    const server = await startMain({ OLLAMA_BASE_URL: 'http://localhost:11434' });
    await new Promise((r) => setTimeout(r, 100));
    const lines = server.output.join('').split('\n').filter((line) => line.includes('_BASE_URL='));
    const ollama = lines.map((line) => JSON.parse(line) as { level: number; msg: string }).find((line) => line.msg.startsWith('OLLAMA_BASE_URL='));
    expect(ollama, server.output.join('')).to.deep.include({ level: 40, msg: "OLLAMA_BASE_URL=http://localhost:11434 sends Ollama Cloud's calls there, not to https://ollama.com/v1" });
    expect(lines.some((line) => line.includes(`GROQ_BASE_URL=${upstream.url}`))).to.equal(true);
    child?.kill('SIGTERM');
    expect(await server.exited).to.equal(0);
  });

  it('listens, answers, and exits 0 on SIGTERM when idle', async () => {
    const server = await startMain();
    const health = await fetch(`${server.url}/health`);
    expect(health.status).to.equal(200);
    child?.kill('SIGTERM');
    expect(await server.exited).to.equal(0);
  });

  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    it(`${signal} lets an in-flight stream finish, refuses new connections, then exits 0`, async () => {
      upstream.handle(faults.trickle(6, 80));
      const server = await startMain();
      const stream = await openChat(server.url, hello('free:auto', { stream: true }), keyHeaders('groq'));
      child?.kill(signal);
      await new Promise((r) => setTimeout(r, 100));
      const refused = await fetch(`${server.url}/health`).then(
        () => false,
        () => true,
      );
      expect(refused, 'new connections are refused while draining').to.equal(true);
      const events = sseEvents(stream.firstChunk + (await stream.rest).slice(stream.firstChunk.length));
      expect(events.at(-1)).to.equal('[DONE]');
      const finished = performance.now();
      expect(await server.exited).to.equal(0);
      // The drained keep-alive connection is closed at once, not after its idle timeout.
      expect(performance.now() - finished).to.be.below(1000);
    });
  }

  /** The request log lines the child wrote, parsed. */
  const requestLines = (output: readonly string[]): Array<{ level: number; msg: string; reason?: string }> =>
    output
      .join('')
      .split('\n')
      .filter((line) => line.includes('"msg":"POST /v1/chat/completions'))
      .map((line) => JSON.parse(line) as { level: number; msg: string; reason?: string });

  const shutdownReason = 'Freeway was shutting down and SHUTDOWN_TIMEOUT_MS ran out before the answer was complete';

  it('after SHUTDOWN_TIMEOUT_MS a request still waiting gets a 503 server_error and a warn log line, then exits 0', async () => {
    upstream.handle(faults.hangBeforeHeaders());
    upstream.requests.length = 0;
    const server = await startMain({ SHUTDOWN_TIMEOUT_MS: '300', FIRST_TOKEN_TIMEOUT_MS: '60000' });
    const pending = postChat(server.url, hello('free:auto'), keyHeaders('groq'));
    while (upstream.requests.length === 0) await new Promise((r) => setTimeout(r, 10));
    const signalled = performance.now();
    child?.kill('SIGTERM');
    const res = await pending;
    expect(res.status).to.equal(503);
    expect(res.json.error).to.deep.equal({ message: 'Freeway is shutting down. Send the request again.', type: 'server_error', code: 503 });
    expect(await server.exited).to.equal(0);
    expect(performance.now() - signalled).to.be.within(250, 3000);
    const lines = requestLines(server.output);
    expect(lines).to.have.length(1);
    expect(lines[0]?.level).to.equal(40);
    expect(lines[0]?.msg).to.match(/^POST \/v1\/chat\/completions 503 \d+ms$/);
    expect(lines[0]?.reason).to.equal(shutdownReason);
  });

  it('after SHUTDOWN_TIMEOUT_MS a started stream ends with an error event, not a silent cut, and is logged at warn', async () => {
    upstream.handle(faults.trickle(1000, 50));
    const server = await startMain({ SHUTDOWN_TIMEOUT_MS: '300' });
    const stream = await openChat(server.url, hello('free:auto', { stream: true }), keyHeaders('groq'));
    child?.kill('SIGTERM');
    const events = sseEvents(await stream.rest);
    expect(events.length).to.be.greaterThan(2);
    expect(events.at(-1).error).to.deep.equal({ message: 'Freeway is shutting down. Send the request again.', type: 'server_error', code: 503 });
    expect(events).to.not.include('[DONE]');
    expect(await server.exited).to.equal(0);
    const lines = requestLines(server.output);
    expect(lines).to.have.length(1);
    expect(lines[0]?.level).to.equal(40);
    expect(lines[0]?.msg).to.match(/^POST \/v1\/chat\/completions 200 \d+ms$/);
    expect(lines[0]?.reason).to.equal(shutdownReason);
  });

  it('a second signal exits at once', async () => {
    upstream.handle(faults.hangBeforeHeaders());
    upstream.requests.length = 0;
    const server = await startMain({ FIRST_TOKEN_TIMEOUT_MS: '60000' });
    const pending = postChat(server.url, hello('free:auto'), keyHeaders('groq')).catch((error: Error) => error);
    while (upstream.requests.length === 0) await new Promise((r) => setTimeout(r, 10));
    child?.kill('SIGTERM');
    // Later than the window in which a repeat is taken for the same signal delivered twice.
    await new Promise((r) => setTimeout(r, 400));
    const second = performance.now();
    child?.kill('SIGTERM');
    expect(await server.exited).to.equal(1);
    expect(performance.now() - second).to.be.below(1000);
    await pending;
  });
});
