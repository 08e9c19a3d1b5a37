import { expect } from 'chai';
import type { HealthStore } from '../../server/state/health-records.ts';
import { createMemoryHealthStore } from '../../server/routing/health-policy.ts';
import { startFreeway, type RunningFreeway } from '../support/freeway.ts';
import { faults } from '../support/faults.ts';
import { headerFor, keyHeaders, testKeys } from '../support/keys.ts';
import { json, openAIError, openAIText, startUpstream, type FakeUpstream, type SeenRequest } from '../support/upstream.ts';

const providerIds = Object.keys(testKeys);
const allKeys = keyHeaders(...providerIds);
const hi = [{ role: 'user', content: 'hi' }];
const LINE = /^(GET|HEAD|POST|PUT|PATCH|DELETE|OPTIONS) (\S+) (\d{3}) (\d+)ms$/;
const customHeaderValue = 'SuperSecretCustomHeaderValue0123';
const badCloudflareKey = 'NoColonCloudflareSecretValue0123';

interface LogLine {
  level: number;
  msg: string;
  [field: string]: unknown;
}

const parse = (line: string): LogLine => JSON.parse(line) as LogLine;
const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** The log line is written when the response finishes, which may be a moment after the client has it. */
async function waitForLines(logs: readonly string[], count: number): Promise<void> {
  const deadline = Date.now() + 1000;
  while (logs.length < count && Date.now() < deadline) await sleep(5);
  expect(logs.length, logs.join('\n')).to.be.at.least(count);
}

/** Every secret a key is made of: the key, its `account_id:api_token` halves, its 8+ character pieces. */
function secretsOf(key: string): string[] {
  const pieces = key.split(/[:_-]/).filter((piece) => piece.length >= 8);
  return [...new Set([key, ...key.split(':'), ...pieces])];
}

const allSecrets = [...providerIds.flatMap((id) => secretsOf(testKeys[id] as string)), customHeaderValue, ...secretsOf(badCloudflareKey)];

function expectNoSecrets(lines: readonly string[]): void {
  const text = lines.join('\n');
  for (const secret of allSecrets) {
    expect(text.includes(secret), `"${secret}" appears in the log:\n${text}`).to.equal(false);
  }
}

/** The key an upstream received, and Cloudflare's account id from the path. */
function received(req: SeenRequest): string {
  const auth = req.headers.authorization;
  const key = typeof auth === 'string' ? auth.replace(/^Bearer /, '') : String(req.headers['x-goog-api-key'] ?? '');
  const account = /\/accounts\/([^/]+)\//.exec(req.path)?.[1];
  return account ? `${account}:${key}` : key;
}

describe('request logging', () => {
  let upstream: FakeUpstream;
  let freeway: RunningFreeway;
  let mode: 'ok' | 'echo' | 'hang' = 'ok';

  before(async () => {
    upstream = await startUpstream((req, res) => {
      if (mode === 'hang') return;
      if (mode === 'ok') {
        openAIText(res, 'Hello there', req);
        return;
      }
      // An upstream that repeats the caller's key in its error, as some do.
      const message = `Invalid API key provided: ${received(req)}`;
      if (req.path.includes('generateContent')) json(res, 401, { error: { code: 401, message, status: 'UNAUTHENTICATED' } });
      else openAIError(res, 401, message);
    });
    const env: Record<string, string> = { MAX_ATTEMPTS: '20' };
    for (const id of providerIds) env[`${id.toUpperCase()}_BASE_URL`] = upstream.url;
    freeway = await startFreeway({ env });
  });

  after(async () => {
    await freeway.close();
    await upstream.close();
  });

  beforeEach(() => {
    freeway.logs.length = 0;
    upstream.requests.length = 0;
    mode = 'ok';
  });

  async function send(method: string, path: string, options: { body?: string; headers?: Record<string, string> } = {}): Promise<Response> {
    const response = await fetch(`${freeway.url}${path}`, {
      method,
      headers: { 'X-Custom': customHeaderValue, Authorization: `Bearer ${testKeys.groq}`, ...allKeys, ...options.headers },
      body: options.body,
    });
    await response.arrayBuffer();
    return response;
  }

  const chatBody = (model: string, extra: Record<string, unknown> = {}): string => JSON.stringify({ model, messages: hi, ...extra });

  it('writes one line per request, <METHOD> <path> <status> <N>ms, with matched routes under their route path', async () => {
    const expected: Array<[method: string, path: string, status: number]> = [];
    const check = async (method: string, path: string, loggedPath: string, status: number, body?: string): Promise<void> => {
      const response = await send(method, path, body === undefined ? {} : { body, headers: { 'content-type': 'application/json' } });
      expect(response.status, `${method} ${path}`).to.equal(status);
      expected.push([method, loggedPath, status]);
    };
    await check('GET', '/health', '/health', 200);
    await check('HEAD', '/health', '/health', 200);
    await check('GET', '/v1/models', '/v1/models', 200);
    await check('GET', '/v1/models/groq/llama-3.3-70b-versatile', '/v1/models/*id', 200);
    await check('GET', '/v1/models/cloudflare/@cf/meta/llama-3.1-8b-instruct-fp8', '/v1/models/*id', 200);
    await check('POST', '/v1/chat/completions', '/v1/chat/completions', 200, chatBody('groq/llama-3.3-70b-versatile'));
    await check('POST', '/v1/chat/completions', '/v1/chat/completions', 200, chatBody('cerebras/llama-3.3-70b', { stream: true }));
    await check('POST', '/v1/chat/completions', '/v1/chat/completions', 400, chatBody('free:auto', { temperature: 9 }));
    await check('POST', '/v1/chat/completions', '/v1/chat/completions', 404, chatBody('groq/nope'));
    // Unmatched paths: ordinary words stay, key-shaped tokens (16+ characters mixing letters and digits) go.
    await check('GET', '/v2/foo', '/v2/foo', 404);
    await check('GET', '/v1/abcdefgh', '/v1/abcdefgh', 404);
    await check('GET', '/v1/images/generations', '/v1/images/generations', 404);
    await check('GET', '/v1/embeddings', '/v1/embeddings', 405);
    await check('GET', '/v1/some-long_token/x', '/v1/some-long_token/x', 404);
    await check('GET', '/v1/a1b2c3d4e5f6g7h8/x', '/v1/[REDACTED]/x', 404);
    // Query strings go through the same redaction, on matched routes too.
    await check('GET', '/v1/models?page=2&cursor=abcdefgh123', '/v1/models?page=2&cursor=abcdefgh123', 200);
    await check('GET', '/v1/models?page=2&cursor=Zm9vYmFyYmF6cXV4MTIz', '/v1/models?page=2&cursor=[REDACTED]', 200);

    await waitForLines(freeway.logs, expected.length);
    expect(freeway.logs).to.have.length(expected.length);
    const lines = freeway.logs.map(parse);
    lines.forEach((line, i) => {
      const [method, path, status] = expected[i] as [string, string, number];
      const match = LINE.exec(line.msg);
      expect(match, line.msg).to.not.equal(null);
      expect(line.msg).to.equal(`${method} ${path} ${status} ${match?.[4]}ms`);
      expect(line.level).to.equal(30);
      expect(Number(match?.[4])).to.be.below(5000);
    });
    // Upstream attempts are logged without keys: provider, model, status, ms.
    const withAttempts = lines.filter((line) => line.attempts !== undefined);
    expect(withAttempts).to.have.length(2);
    expect(withAttempts[0]?.attempts).to.deep.equal([
      { provider: 'groq', model: 'llama-3.3-70b-versatile', status: 200, ms: (withAttempts[0]?.attempts as Array<{ ms: number }>)[0]?.ms },
    ]);
    expectNoSecrets(freeway.logs);
  });

  it('never logs a key: not from headers, paths, query strings or upstream errors that echo it', async () => {
    let requests = 0;
    const sendCounted = async (...args: Parameters<typeof send>): Promise<Response> => {
      requests += 1;
      return send(...args);
    };
    const json = { 'content-type': 'application/json' };

    // Keys in headers, on every route, with successes and errors.
    expect((await sendCounted('GET', '/health')).status).to.equal(200);
    expect((await sendCounted('GET', '/v1/models')).status).to.equal(200);
    expect((await sendCounted('POST', '/v1/chat/completions', { body: chatBody('groq/llama-3.3-70b-versatile'), headers: json })).status).to.equal(200);
    expect((await sendCounted('POST', '/v1/chat/completions', { body: chatBody('free:fast', { stream: true }), headers: json })).status).to.equal(200);
    expect((await sendCounted('POST', '/v1/chat/completions', { body: '{"model": ', headers: json })).status).to.equal(400);
    expect((await sendCounted('POST', '/v1/chat/completions', { body: chatBody('free:auto'), headers: { ...json, [headerFor('cloudflare')]: badCloudflareKey } })).status).to.equal(400);
    expect((await sendCounted('GET', '/health', { headers: { [headerFor('cloudflare')]: badCloudflareKey } })).status).to.equal(400);

    for (const id of providerIds) {
      const key = testKeys[id] as string;
      // Keys in unknown paths, in the model id path, in query strings, on wrong methods.
      expect((await sendCounted('GET', `/v1/${key}`)).status).to.equal(404);
      expect((await sendCounted('GET', `/${key}/${key}`)).status).to.equal(404);
      expect((await sendCounted('GET', `/v1/models/${key}`)).status).to.equal(404);
      expect((await sendCounted('DELETE', `/v1/models/${key}`)).status).to.equal(405);
      expect((await sendCounted('GET', `/v1/models?key=${encodeURIComponent(key)}&raw=${key}`)).status).to.equal(200);
      expect((await sendCounted('GET', `/health?api_key=${key}`)).status).to.equal(200);
      expect((await sendCounted('POST', `/v1/chat/completions?key=${key}`, { body: chatBody(key), headers: json })).status).to.equal(404);
    }

    // Every provider fails and echoes the key it was given.
    mode = 'echo';
    const failed = await sendCounted('POST', '/v1/chat/completions', { body: chatBody('free:auto'), headers: json });
    expect(failed.status).to.equal(502);
    const seen = new Set(upstream.requests.map(received));
    for (const id of providerIds) expect(seen.has(testKeys[id] as string), `${id} was tried`).to.equal(true);
    // And once more, streaming, pinned.
    const pinned = await sendCounted('POST', '/v1/chat/completions', { body: chatBody('mistral/mistral-small-latest', { stream: true }), headers: json });
    expect(pinned.status).to.equal(502);

    await waitForLines(freeway.logs, requests);
    expect(freeway.logs).to.have.length(requests);
    for (const raw of freeway.logs) expect(parse(raw).msg).to.match(LINE);
    expectNoSecrets(freeway.logs);

    // The paths were logged, redacted.
    const msgs = freeway.logs.map((raw) => parse(raw).msg);
    expect(msgs.some((msg) => /^GET \/v1\/\[REDACTED\] 404 \d+ms$/.test(msg)), 'key path').to.equal(true);
    // Cloudflare's account_id:api_token goes whole, or each half.
    expect(msgs.some((msg) => /^GET \/v1\/\[REDACTED\](:\[REDACTED\])? 404 \d+ms$/.test(msg)), 'cloudflare key path').to.equal(true);
    expect(msgs.some((msg) => /^GET \/v1\/models\?key=\[REDACTED\]&raw=\[REDACTED\] 200 \d+ms$/.test(msg))).to.equal(true);
    expect(msgs.some((msg) => /^GET \/v1\/models\/\*id 404 \d+ms$/.test(msg))).to.equal(true);
  });

  it('logs a client that went away as 499', async () => {
    mode = 'hang';
    const controller = new AbortController();
    const pending = fetch(`${freeway.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...allKeys },
      body: chatBody('groq/llama-3.3-70b-versatile', { stream: true }),
      signal: controller.signal,
    });
    while (upstream.requests.length === 0) await sleep(5);
    controller.abort();
    await pending.catch(() => undefined);
    await waitForLines(freeway.logs, 1);
    const msg = parse(freeway.logs[0] as string).msg;
    expect(msg).to.match(/^POST \/v1\/chat\/completions 499 \d+ms$/);
    expectNoSecrets(freeway.logs);
  });
});

describe('request logging: streams that did not end well', () => {
  let upstream: FakeUpstream;
  let freeway: RunningFreeway;
  before(async () => {
    upstream = await startUpstream(faults.trickle(200, 20));
    freeway = await startFreeway({ env: { GROQ_BASE_URL: upstream.url } });
  });
  after(async () => {
    await freeway.close();
    await upstream.close();
  });
  beforeEach(() => {
    freeway.logs.length = 0;
  });

  it('a stream the client aborted after its first bytes is logged as 499, not 200', async () => {
    upstream.handle(faults.trickle(200, 20));
    const controller = new AbortController();
    const response = await fetch(`${freeway.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...keyHeaders('groq') },
      body: JSON.stringify({ model: 'groq/llama-3.3-70b-versatile', messages: hi, stream: true }),
      signal: controller.signal,
    });
    expect(response.status).to.equal(200);
    const reader = (response.body as ReadableStream<Uint8Array>).getReader();
    await reader.read();
    controller.abort();
    await reader.read().catch(() => undefined);
    await waitForLines(freeway.logs, 1);
    const line = parse(freeway.logs[0] as string);
    expect(line.msg).to.match(/^POST \/v1\/chat\/completions 499 \d+ms$/);
    expect(line.level).to.equal(30);
  });

  it('a stream that ended with an error event is logged at warn with its reason', async () => {
    upstream.handle(faults.closeMidStream());
    const response = await fetch(`${freeway.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...keyHeaders('groq') },
      body: JSON.stringify({ model: 'groq/llama-3.3-70b-versatile', messages: hi, stream: true }),
    });
    const text = await response.text();
    expect(text).to.include('"error"');
    await waitForLines(freeway.logs, 1);
    const line = parse(freeway.logs[0] as string);
    expect(line.level).to.equal(40);
    expect(line.msg).to.match(/^POST \/v1\/chat\/completions 200 \d+ms$/);
    expect(line.reason).to.match(/^The stream from groq failed after it started: /);
    expect(line.attempts).to.have.length(1);
  });
});

describe('request logging: unexpected errors', () => {
  it('logs a 500 with the error sanitized and no key', async () => {
    const memory = createMemoryHealthStore();
    const secrets = providerIds.map((id) => testKeys[id] as string).join(' ');
    const broken: HealthStore = {
      ...memory,
      async get() {
        throw new Error(`store lost the records of ${secrets}`);
      },
    };
    const freeway = await startFreeway({ healthStore: broken });
    try {
      const response = await fetch(`${freeway.url}/health`, { headers: { ...allKeys, 'X-Custom': customHeaderValue } });
      expect(response.status).to.equal(500);
      await response.arrayBuffer();
      await waitForLines(freeway.logs, 2);
      const lines = freeway.logs.map(parse);
      const error = lines.find((line) => line.level === 50);
      expect(error?.msg).to.equal('GET /health: unexpected error');
      const err = error?.err as { type: string; message: string };
      expect(err.type).to.equal('Error');
      expect(err.message).to.match(/^store lost the records of (\[REDACTED\]|\[REDACTED\]:\[REDACTED\])( |$)/);
      const requestLines = lines.filter((line) => line.level === 30);
      expect(requestLines).to.have.length(1);
      expect(requestLines[0]?.msg).to.match(/^GET \/health 500 \d+ms$/);
      expect(freeway.logs.join('\n')).to.not.match(/"stack"/);
      expectNoSecrets(freeway.logs);
    } finally {
      await freeway.close();
      await memory.close();
    }
  });
});
