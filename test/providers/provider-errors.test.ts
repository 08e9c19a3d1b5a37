/**
 * Every plugin's error table, row by row, through the real path: the provider's
 * documented error answer comes from a real HTTP server on 127.0.0.1 (reached
 * through `<ID>_BASE_URL`), goes through the provider's own AI SDK model and
 * Freeway's classification, and the test looks at what the client gets and at
 * what GET /health then says. Rows live in each plugin's fixtures.ts.
 */
import { APICallError } from '@ai-sdk/provider';
import { expect } from 'chai';
import type { ServerResponse } from 'node:http';
import { FIXTURE_NOW, type ErrorFixture, type ProviderPlugin } from '../../providers/types.ts';
import { createRedactor } from '../../server/core/redact.ts';
import { HEALTH_TIMINGS } from '../../server/routing/health-policy.ts';
import { classifyFailure } from '../../server/routing/upstream-errors.ts';
import { startFreeway, type RunningFreeway } from '../support/freeway.ts';
import { getHealth, hello, postChat } from '../support/http.ts';
import { headerFor, keyHeaders } from '../support/keys.ts';
import { providerFixtures, providerPlugins } from '../support/plugins.ts';
import { errorCode, matchingRule } from '../../providers/error-rules.ts';
import { geminiSSE, openAIText, startUpstream, type FakeUpstream, type SeenRequest } from '../support/upstream.ts';

const plugins = await providerPlugins();
const fixtures = await providerFixtures();
const redact = createRedactor(plugins);

/** A model an alias could pick, pinned as `{provider}/{modelId}`. */
function liveModel(plugin: ProviderPlugin): string {
  const spec = plugin.models.find((model) => !model.deprecated) ?? plugin.models[0];
  if (!spec) throw new Error(`${plugin.id} declares no models`);
  return `${plugin.id}/${spec.id}`;
}

function bodyText(row: ErrorFixture): string {
  return typeof row.body === 'string' ? row.body : JSON.stringify(row.body);
}

/** Answers every call with the row's documented status, headers and body. */
function answerWith(row: ErrorFixture) {
  return (_req: SeenRequest, res: ServerResponse): void => {
    const text = bodyText(row);
    const type = typeof row.body === 'string' ? 'text/plain' : 'application/json';
    res.writeHead(row.status, { 'content-type': type, 'content-length': Buffer.byteLength(text), ...row.headers });
    res.end(text);
  };
}

/** A healthy upstream of either wire format (Gemini's path names the method). */
function answerOk(text: string) {
  return (req: SeenRequest, res: ServerResponse): void => {
    if (req.path.includes(':streamGenerateContent')) geminiSSE(res, text);
    else openAIText(res, text, req);
  };
}

const envName = (id: string): string => `${id.toUpperCase()}_BASE_URL`;
const keyLevel = new Set(['rate_limited', 'invalid_key', 'no_credit']);
/** NO_CREDIT_WAIT_MS's default, in seconds: how long a key without credit sits out. */
const noCreditWait = 86_400;

function expectedHealth(row: ErrorFixture): Record<string, unknown> {
  switch (row.kind) {
    case 'rate_limited':
      return { state: 'rate_limited', consecutiveFailures: 1, retryAfter: row.retryAfter };
    case 'invalid_key':
      return { state: 'invalid_key', consecutiveFailures: 1, retryAfter: 600 };
    case 'no_credit':
      return { state: 'no_credit', consecutiveFailures: 1, retryAfter: noCreditWait };
    case 'server':
      return { state: 'healthy', consecutiveFailures: 1 };
    default:
      // The model, or the request: nothing wrong with the key.
      return { state: 'healthy', consecutiveFailures: 0 };
  }
}

describe('provider error tables: each documented error answer through Freeway', () => {
  let upstream: FakeUpstream;

  before(async () => {
    upstream = await startUpstream();
  });
  after(() => upstream.close());

  it('every discovered plugin has error rows, each naming where its body comes from', () => {
    for (const plugin of plugins) {
      const rows = fixtures.get(plugin.id)?.errors ?? [];
      expect(rows.length, `providers/${plugin.id}/fixtures.ts error rows`).to.be.greaterThan(0);
      for (const row of rows) {
        expect(row.source.trim(), `${plugin.id}: ${row.name} source`).to.not.equal('');
        if (row.kind === 'rate_limited') expect(row.retryAfter, `${plugin.id}: ${row.name} retryAfter`).to.be.a('number');
      }
    }
  });

  for (const plugin of plugins) {
    const rows = fixtures.get(plugin.id)?.errors ?? [];
    describe(plugin.id, () => {
      const model = liveModel(plugin);
      const keys = (): Record<string, string> => keyHeaders(plugin.id);
      let freeway: RunningFreeway;

      beforeEach(async () => {
        upstream.requests.length = 0;
        freeway = await startFreeway({ env: { [envName(plugin.id)]: upstream.url }, now: () => FIXTURE_NOW });
      });
      afterEach(() => freeway.close());

      for (const row of rows) {
        it(`${row.status} ${row.name} -> ${row.kind}${row.retryAfter === undefined ? '' : `, retry after ${row.retryAfter}s`}`, async () => {
          // The table itself: the row's answer, classified with the plugin's rules.
          const error = new APICallError({
            message: bodyText(row),
            url: `${plugin.baseURL}/chat/completions`,
            requestBodyValues: {},
            statusCode: row.status,
            responseHeaders: { ...row.headers },
            responseBody: bodyText(row),
          });
          const failure = classifyFailure(error, { redact, keys: [], rules: plugin.errorRules, now: FIXTURE_NOW });
          expect(failure.kind, 'classified kind').to.equal(row.kind);
          // Without a time from the provider, health's default of 60 s applies; no wait is longer than its cap.
          const skipMs = Math.min(failure.retryAfterMs ?? 60_000, HEALTH_TIMINGS.maxSkipMs);
          if (row.kind === 'rate_limited') expect(Math.ceil(skipMs / 1000), 'retry after (s)').to.equal(row.retryAfter);
          expect(failure.requestLimit, 'the per-request limit it states').to.equal(row.kind === 'request_too_large' ? row.requestLimit : undefined);

          // HTTP in, HTTP out: a pinned request gets one attempt.
          upstream.handle(answerWith(row));
          const res = await postChat(freeway.url, hello(model), keys());
          expect(upstream.requests, 'upstream calls').to.have.length(1);
          expect(res.json?.error?.code, res.text).to.equal(res.status);
          // hello() asks for no output budget: there is nothing to lower, so a pinned model's refusal is the caller's 400.
          if (row.kind === 'request_too_large') {
            // The key's own figure, from its 413: the 400 names it.
            expect(res.status, res.text).to.equal(400);
            expect(res.json.error.type).to.equal('invalid_request_error');
            expect(res.json.error.message).to.match(new RegExp(`^Request too large: about \\d+ tokens of input, more than any model your keys can use takes: ${model.replace(/[/.]/g, '\\$&')} takes ${(row.requestLimit ?? 0).toLocaleString('en-US')} tokens a request on this key`));
          } else if (row.kind === 'request' || row.kind === 'context_too_long' || row.kind === 'output_budget') {
            expect(res.status, res.text).to.equal(400);
            expect(res.json.error.type).to.equal('invalid_request_error');
            expect(res.json.error.message).to.match(new RegExp(`^${plugin.id} rejected the request: ${row.status} `));
          } else if (row.kind === 'rate_limited') {
            // Nothing failed, the key only rests (beyond the wait budget): a 429 naming when it is usable again.
            expect(res.status, res.text).to.equal(429);
            expect(res.json.error.type).to.equal('rate_limit_error');
            expect(res.json.error.message).to.match(new RegExp(`^Every key that could answer is resting for its rate-limit window, beyond this request's wait budget: ${plugin.id}: usable again in ${row.retryAfter}s \\(${row.status} `));
            expect(res.headers.get('retry-after')).to.equal(String(row.retryAfter));
          } else {
            expect(res.status, res.text).to.equal(502);
            expect(res.json.error.type).to.equal('freeway_provider_error');
            // A refused key says so, and which header to fix.
            const refused = row.kind === 'invalid_key' || row.kind === 'no_credit';
            expect(res.json.error.message).to.match(
              refused
                ? new RegExp(`^Provider failed: ${plugin.id}: the provider refused the key(: it has no credit left)? \\(${row.status} .*: (add credit or )?fix ${plugin.header}$`)
                : new RegExp(`^Provider failed: ${plugin.id}: ${row.status} `),
            );
            if (refused) expect(res.headers.get('retry-after'), 'waiting does not mend a refused key').to.equal(null);
          }
          const sentKey = keys()[headerFor(plugin.id)] as string;
          for (const secret of sentKey.split(':')) expect(res.text, 'the key never comes back').to.not.include(secret);

          // What the key's health now says.
          expect((await getHealth(freeway.url, keys())).providers[plugin.id]).to.deep.equal(expectedHealth(row));

          if (keyLevel.has(row.kind)) {
            // The next request leaves the key alone until its time is up.
            const next = await postChat(freeway.url, hello('free:auto'), keys());
            if (row.kind === 'rate_limited') {
              expect(next.status, next.text).to.equal(429);
              expect(next.json.error.type).to.equal('rate_limit_error');
              expect(next.json.error.message).to.include(`${plugin.id}: usable again in ${row.retryAfter}s`);
            } else {
              expect(next.status, next.text).to.equal(502);
              expect(next.json.error.type).to.equal('freeway_all_providers_failed');
              // A key refused earlier (invalid, or without credit): fix it, rather than wait for the end of its cooldown.
              const refusal = row.kind === 'no_credit' ? `earlier: it has no credit left \\(${row.status} .*\\): add credit or fix` : `earlier \\(${row.status} .*\\): fix`;
              expect(next.json.error.message).to.match(new RegExp(`${plugin.id}: the provider refused the key ${refusal} ${plugin.header}$`));
              expect(next.headers.get('retry-after')).to.equal(null);
            }
            expect(upstream.requests, 'the key is not called again').to.have.length(1);
          }
        });
      }
    });
  }
});

describe('failing over on documented key errors', () => {
  let failing: FakeUpstream;
  let backup: FakeUpstream;

  before(async () => {
    [failing, backup] = await Promise.all([startUpstream(), startUpstream(answerOk('from the backup'))]);
  });
  after(() => Promise.all([failing.close(), backup.close()]));
  beforeEach(() => {
    failing.requests.length = 0;
    backup.requests.length = 0;
  });

  /** free:auto with keys for `id` (tried first by priority) and `backupId`; `id` answers with its row `name`. */
  async function failOver(id: string, backupId: string, name: string): Promise<void> {
    const plugin = plugins.find((candidate) => candidate.id === id);
    const other = plugins.find((candidate) => candidate.id === backupId);
    if (!plugin || !other) throw new Error(`no plugin ${id} or ${backupId}`);
    expect(plugin.priority, 'the failing provider goes first').to.be.below(other.priority);
    const row = fixtures.get(id)?.errors.find((candidate) => candidate.name === name);
    if (!row) throw new Error(`providers/${id}/fixtures.ts has no row "${name}"`);
    failing.handle(answerWith(row));
    const freeway = await startFreeway({ env: { [envName(id)]: failing.url, [envName(backupId)]: backup.url }, now: () => FIXTURE_NOW });
    try {
      const keys = keyHeaders(id, backupId);
      const first = await postChat(freeway.url, hello('free:auto'), keys);
      expect(first.status, first.text).to.equal(200);
      expect(first.json.choices[0].message.content).to.equal('from the backup');
      expect(first.headers.get('x-freeway-attempts')).to.match(new RegExp(`^${id}/\\S+ ${row.status} \\d+ms, ${backupId}/\\S+ 200 \\d+ms$`));
      expect((await getHealth(freeway.url, keys)).providers[id]).to.deep.equal(expectedHealth(row));

      const second = await postChat(freeway.url, hello('free:auto'), keys);
      expect(second.status, second.text).to.equal(200);
      expect(second.headers.get('x-freeway-attempts')).to.match(new RegExp(`^${backupId}/\\S+ 200 \\d+ms$`));
      expect(failing.requests, `${id} is not called again`).to.have.length(1);
    } finally {
      await freeway.close();
    }
  }

  it("google's invalid key (400 INVALID_ARGUMENT, API_KEY_INVALID) fails over and marks the key invalid", async () => {
    await failOver('google', 'sambanova', 'invalid API key (HTTP 400, reason API_KEY_INVALID)');
  });

  it("google's daily quota keeps the key out until midnight Pacific time", async () => {
    await failOver('google', 'sambanova', 'daily quota (a PerDay quota id): out until midnight Pacific time');
  });

  it("groq's daily token limit keeps the key out for the time Groq names", async () => {
    await failOver('groq', 'cerebras', 'daily token limit (TPD): out until the reported time');
  });

  it("openrouter's daily free-model limit keeps the key out until X-RateLimit-Reset", async () => {
    await failOver('openrouter', 'nvidia', 'daily free-model limit: out until X-RateLimit-Reset');
  });

  it("cloudflare's used-up daily allocation keeps the key out until 00:00 UTC", async () => {
    await failOver('cloudflare', 'nvidia', 'daily free allocation used up: out until 00:00 UTC');
  });
});

describe('error rules that match a documented error code', () => {
  it('read the code where providers put it: error.code, a top-level code, or the first of errors', () => {
    expect(errorCode(JSON.stringify({ error: { message: 'x', code: 'rate_limit_exceeded' } }))).to.equal('rate_limit_exceeded');
    expect(errorCode(JSON.stringify({ error: { message: 'x', code: 1302 } }))).to.equal('1302');
    expect(errorCode(JSON.stringify({ code: 1113, message: 'Insufficient balance' }))).to.equal('1113');
    expect(errorCode(JSON.stringify({ errors: [{ message: 'AiError', code: 3036 }], success: false }))).to.equal('3036');
    expect(errorCode('{"error": "plain text"}')).to.equal(undefined);
    expect(errorCode('rate limited')).to.equal(undefined);
    expect(errorCode('{not json')).to.equal(undefined);
  });

  it('match a number and its text alike, need the status too, and with a body pattern both', () => {
    const rules = [
      { name: 'concurrency', status: 429, code: 1302, kind: 'rate_limited' as const },
      { name: 'daily cap with its words', status: 429, code: '1304', body: /daily/, kind: 'rate_limited' as const },
      { name: 'anything else', status: 429, kind: 'server' as const },
    ];
    expect(matchingRule(rules, 429, '{"error": {"code": "1302", "message": "High concurrency"}}')?.name).to.equal('concurrency');
    expect(matchingRule(rules, 400, '{"error": {"code": 1302}}')).to.equal(undefined);
    expect(matchingRule(rules, 429, '{"error": {"code": 1304, "message": "daily limit reached"}}')?.name).to.equal('daily cap with its words');
    expect(matchingRule(rules, 429, '{"error": {"code": 1304, "message": "over the limit"}}')?.name).to.equal('anything else');
    expect(matchingRule(rules, 429, 'a body that mentions "code": 1302 in its text')?.name).to.equal('anything else');
  });
});

describe('connection errors name the system code, nothing else', () => {
  const classify = (error: unknown) => classifyFailure(error, { redact, keys: [] });
  const systemError = (code: string, message: string): Error => Object.assign(new Error(message), { code });

  it('fetch failing to look the provider up is connection error (ENOTFOUND): no network, DNS or a proxy on this machine', () => {
    const failure = classify(new TypeError('fetch failed', { cause: systemError('ENOTFOUND', 'getaddrinfo ENOTFOUND api.groq.com') }));
    expect([failure.kind, failure.reason]).to.deep.equal(['connection', 'connection error (ENOTFOUND): this machine could not look the provider up']);
  });

  it("the AI SDK's call error without a status carries the code of its cause's cause", () => {
    const cause = new TypeError('fetch failed', { cause: systemError('ECONNRESET', 'read ECONNRESET') });
    const error = new APICallError({ message: 'Cannot connect to API: fetch failed', url: 'https://api.groq.com/openai/v1/chat/completions', requestBodyValues: {}, cause });
    expect(classify(error).reason).to.equal('connection error (ECONNRESET): this machine could not reach the provider');
  });

  it('a code that is not a system code, or none, leaves the reason plain: no message text reaches the caller', () => {
    expect(classify(new TypeError('fetch failed', { cause: systemError('gsk_secret value', 'x') })).reason).to.equal('connection error: this machine could not reach the provider');
    expect(classify(new TypeError('fetch failed', { cause: new Error('socket hang up') })).reason).to.equal('connection error: this machine could not reach the provider');
  });
});
