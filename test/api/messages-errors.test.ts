/**
 * The Messages API's edges: every error in Anthropic's shape with its status,
 * type and message; failover, health, the rate limit, CORS and key redaction on
 * these routes; ANTHROPIC_MODEL_MAP at start-up.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import Anthropic from '@anthropic-ai/sdk';
import { expect } from 'chai';
import { loadConfig } from '../../server/config/index.ts';
import { checkStream, errorSchema, parseEvents } from '../support/anthropic-events.ts';
import { faults } from '../support/faults.ts';
import { providerPlugins, startFreeway, type RunningFreeway } from '../support/freeway.ts';
import { getHealth, readAnswer } from '../support/http.ts';
import { keyHeaders, testKeys } from '../support/keys.ts';
import { startUpstream, type FakeUpstream } from '../support/upstream.ts';
import { C1, CEREBRAS_FIRST, G1 } from '../support/current-models.ts';

const mainScript = fileURLToPath(new URL('../../server/main.ts', import.meta.url));

const hi = (model = 'claude-sonnet-4-6', extra: Record<string, unknown> = {}) => ({
  model,
  max_tokens: 64,
  messages: [{ role: 'user', content: 'Hi' }],
  ...extra,
});

/** `{"a": {"a": ... {}}}`, `levels` objects deep. */
function nested(levels: number): Record<string, unknown> {
  let value: Record<string, unknown> = {};
  for (let i = 1; i < levels; i++) value = { a: value };
  return value;
}

interface Answer {
  status: number;
  headers: Headers;
  text: string;
  json: any;
}

async function call(url: string, method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<Answer> {
  const res = await fetch(`${url}${path}`, {
    method,
    headers: { 'content-type': 'application/json', 'anthropic-version': '2023-06-01', 'x-api-key': 'sk-ant-placeholder', ...headers },
    body: body === undefined ? undefined : typeof body === 'string' || body instanceof Uint8Array ? body : JSON.stringify(body),
  });
  return readAnswer(res);
}

/** Asserts an Anthropic error answer: status, the body's exact shape, its type and message. */
function expectError(answer: Answer, status: number, type: string, message: string | RegExp): void {
  expect(answer.status, answer.text).to.equal(status);
  expect(answer.headers.get('content-type')).to.match(/^application\/json/);
  const checked = errorSchema.safeParse(answer.json);
  expect(checked.success, answer.text).to.equal(true);
  expect(answer.json.type).to.equal('error');
  expect(answer.json.error.type).to.equal(type);
  if (typeof message === 'string') expect(answer.json.error.message).to.equal(message);
  else expect(answer.json.error.message).to.match(message);
  expect(answer.text).not.to.match(/\n\s+at /);
}

describe('Messages API errors and operations', function () {
  let cerebras: FakeUpstream;
  let groq: FakeUpstream;
  let freeway: RunningFreeway;

  before(async function () {
    [cerebras, groq] = await Promise.all([startUpstream(), startUpstream()]);
  });
  after(() => Promise.all([cerebras.close(), groq.close()]));

  beforeEach(async function () {
    cerebras.requests.length = 0;
    groq.requests.length = 0;
    cerebras.handle(faults.ok('from cerebras'));
    groq.handle(faults.ok('from groq'));
    freeway = await startFreeway({ env: { CEREBRAS_BASE_URL: cerebras.url, GROQ_BASE_URL: groq.url, BODY_LIMIT: '2kb' } });
  });
  afterEach(() => freeway.close());

  describe('every error has Anthropic\'s shape, status and type', function () {
    const keys = keyHeaders('cerebras');

    const invalid: Array<[string, unknown, string]> = [
      ['max_tokens missing', { model: 'claude-sonnet-4-6', messages: [{ role: 'user', content: 'Hi' }] }, 'Validation failed: max_tokens: is required'],
      ['model missing', { max_tokens: 5, messages: [{ role: 'user', content: 'Hi' }] }, 'Validation failed: model: is required'],
      ['messages empty', hi('claude-sonnet-4-6', { messages: [] }), 'Validation failed: messages: must NOT have fewer than 1 items'],
      ['a role Anthropic does not have', hi('claude-sonnet-4-6', { messages: [{ role: 'tool', content: 'x' }] }), 'Validation failed: messages.0.role: must be one of user, assistant, system'],
      [
        'an unknown block type',
        hi('claude-sonnet-4-6', { messages: [{ role: 'user', content: [{ type: 'audio', data: 'x' }] }] }),
        'Validation failed: messages.0.content.0.type: must be one of text, image, document, tool_result',
      ],
      [
        'an image media type Anthropic does not take',
        hi('claude-sonnet-4-6', { messages: [{ role: 'user', content: [{ type: 'image', source: { type: 'base64', media_type: 'image/bmp', data: 'AA==' } }] }] }),
        'Validation failed: messages.0.content.0.source.media_type: must be one of image/jpeg, image/png, image/gif, image/webp',
      ],
      [
        'an image by file_id',
        hi('claude-sonnet-4-6', { messages: [{ role: 'user', content: [{ type: 'image', source: { type: 'file', file_id: 'file_1' } }] }] }),
        'Validation failed: messages.0.content.0.source: Freeway keeps no files: send the content inline (base64 or url)',
      ],
      [
        'a base64 document that is not a PDF',
        hi('claude-sonnet-4-6', { messages: [{ role: 'user', content: [{ type: 'document', source: { type: 'base64', media_type: 'application/msword', data: 'AA==' } }] }] }),
        'Validation failed: messages.0.content.0.source.media_type: must be one of application/pdf',
      ],
      [
        'a server tool',
        hi('claude-sonnet-4-6', { tools: [{ type: 'web_search_20250305', name: 'web_search', max_uses: 3 }] }),
        'Validation failed: tools.0: web_search (web_search_20250305) is a server tool, which Freeway does not run; only custom tools (name, description, input_schema) are supported',
      ],
      ['a tool without input_schema', hi('claude-sonnet-4-6', { tools: [{ name: 'x' }] }), 'Validation failed: tools.0.input_schema: is required'],
      [
        'tool_choice naming no tool',
        hi('claude-sonnet-4-6', { tools: [{ name: 'a', input_schema: { type: 'object' } }], tool_choice: { type: 'tool', name: 'b' } }),
        'Validation failed: tool_choice.name: names no tool of the request: b',
      ],
      ['temperature above 1', hi('claude-sonnet-4-6', { temperature: 1.5 }), 'Validation failed: temperature: must be <= 1'],
      ['thinking without a budget', hi('claude-sonnet-4-6', { thinking: { type: 'enabled' } }), 'Validation failed: thinking.budget_tokens: is required'],
      ['an unknown output_config.effort', hi('claude-sonnet-4-6', { output_config: { effort: 'extreme' } }), 'Validation failed: output_config.effort: must be one of low, medium, high, xhigh, max'],
      ['a body that is not an object', [1, 2], 'Validation failed: body: must be object'],
      [
        'a tool schema nested too deep',
        hi('claude-sonnet-4-6', { tools: [{ name: 'deep', input_schema: nested(100) }] }),
        'Validation failed: tools.0.input_schema: is nested more than 64 levels deep',
      ],
      [
        'a tool_use input nested too deep',
        hi('claude-sonnet-4-6', { messages: [{ role: 'user', content: 'x' }, { role: 'assistant', content: [{ type: 'tool_use', id: 't', name: 'n', input: nested(100) }] }] }),
        'Validation failed: messages.1.content.0.input: is nested more than 64 levels deep',
      ],
    ];
    for (const [what, body, message] of invalid) {
      it(`400 invalid_request_error: ${what}`, async function () {
        expectError(await call(freeway.url, 'POST', '/v1/messages', body, keys), 400, 'invalid_request_error', message);
        expect(cerebras.requests).to.have.length(0);
      });
    }

    it('400 for a body that is not JSON', async function () {
      expectError(await call(freeway.url, 'POST', '/v1/messages', '{"model": ', keys), 400, 'invalid_request_error', 'Validation failed: body: not valid JSON');
    });

    it('413 request_too_large for a body over BODY_LIMIT', async function () {
      const body = hi('claude-sonnet-4-6', { messages: [{ role: 'user', content: 'x'.repeat(4096) }] });
      expectError(await call(freeway.url, 'POST', '/v1/messages', body, keys), 413, 'request_too_large', 'Request body larger than 2kb.');
    });

    it('415 invalid_request_error for a compressed body', async function () {
      const answer = await call(freeway.url, 'POST', '/v1/messages', gzipSync(JSON.stringify(hi())), { ...keys, 'content-encoding': 'gzip' });
      expectError(answer, 415, 'invalid_request_error', 'Request body must be uncompressed UTF-8 JSON.');
    });

    it('401 authentication_error without a key for any candidate', async function () {
      expectError(await call(freeway.url, 'POST', '/v1/messages', hi()), 401, 'authentication_error', /^No provider key for claude-sonnet-4-6 \(mapped to free:tool-use\)\. Send one of: X-Groq-Key, X-Google-Key, /);
    });

    it('404 not_found_error for a model that is neither in the catalog nor mapped', async function () {
      expectError(await call(freeway.url, 'POST', '/v1/messages', hi('my-own-model'), keys), 404, 'not_found_error', 'Unknown model: my-own-model. GET /v1/models lists the models.');
      // An OpenAI model name says how it could be served: MODEL_MAP is read on /v1/messages too.
      expectError(
        await call(freeway.url, 'POST', '/v1/messages', hi('gpt-4o'), keys),
        404,
        'not_found_error',
        'Unknown model: gpt-4o. Freeway serves no OpenAI model by its name: send an alias such as `free:auto` or a model GET /v1/models lists, or map the name on this Freeway with MODEL_MAP (MODEL_MAP=gpt-4o=free:auto).',
      );
    });

    it('404 not_found_error for an unknown route under /v1/messages', async function () {
      expectError(await call(freeway.url, 'POST', '/v1/messages/batches', hi(), keys), 404, 'not_found_error', "Unknown route: POST /v1/messages/batches. Freeway serves GET /v1/models (the models), GET /health (the providers' health) and the APIs under /v1; its README describes them.");
    });

    it('405 invalid_request_error with Allow for a wrong method, on both routes', async function () {
      const get = await call(freeway.url, 'GET', '/v1/messages');
      expectError(get, 405, 'invalid_request_error', 'Method GET is not allowed on /v1/messages. Allowed: POST.');
      expect(get.headers.get('allow')).to.equal('POST');
      const count = await call(freeway.url, 'DELETE', '/v1/messages/count_tokens');
      expectError(count, 405, 'invalid_request_error', 'Method DELETE is not allowed on /v1/messages/count_tokens. Allowed: POST.');
    });

    it('400 from count_tokens for an invalid body; max_tokens is not needed there', async function () {
      expectError(await call(freeway.url, 'POST', '/v1/messages/count_tokens', { model: 'claude-haiku-4-5' }), 400, 'invalid_request_error', 'Validation failed: messages: is required');
      const ok = await call(freeway.url, 'POST', '/v1/messages/count_tokens', { model: 'claude-haiku-4-5', messages: [{ role: 'user', content: 'abcd' }] });
      expect(ok.status).to.equal(200);
      expect(ok.json).to.deep.equal({ input_tokens: 1 });
    });

    it('400 invalid_request_error when the provider rejects the request, with the key redacted', async function () {
      cerebras.handle(faults.badRequest(`Invalid tool schema (key ${testKeys.cerebras})`));
      const answer = await call(freeway.url, 'POST', '/v1/messages', hi(), keys);
      expectError(answer, 400, 'invalid_request_error', 'cerebras rejected the request: 400 Invalid tool schema (key [REDACTED])');
      expect(answer.text).not.to.include(testKeys.cerebras);
    });

    it('502 api_error when every provider failed, with the SDK seeing a retryable InternalServerError', async function () {
      cerebras.handle(faults.serverError(503));
      const answer = await call(freeway.url, 'POST', '/v1/messages', hi(), keys);
      expectError(answer, 502, 'api_error', /^All providers failed: cerebras: 503 Internal error, please retry/);
      expect(answer.headers.get('x-freeway-attempts')).to.match(new RegExp(`^cerebras\\/${C1} 503 \\d+ms`));

      const anthropic = new Anthropic({ baseURL: freeway.url, apiKey: 'x', defaultHeaders: keys, maxRetries: 0 });
      const error = await anthropic.messages.create(hi() as Anthropic.MessageCreateParamsNonStreaming).then(() => undefined, (caught: unknown) => caught);
      expect(error).to.be.instanceOf(Anthropic.InternalServerError);
      expect((error as InstanceType<typeof Anthropic.APIError>).status).to.equal(502);
      expect(((error as InstanceType<typeof Anthropic.APIError>).error as any).error.type).to.equal('api_error');
    });

    it('502 api_error when a pinned model\'s provider failed, with its key redacted', async function () {
      cerebras.handle((_req, res) => {
        res.writeHead(401, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: { message: `Invalid API key: ${testKeys.cerebras}`, type: 'invalid_request_error' } }));
      });
      const answer = await call(freeway.url, 'POST', '/v1/messages', hi('cerebras/llama-3.3-70b'), keys);
      expectError(answer, 502, 'api_error', /^Provider failed: cerebras: the provider refused the key \(401 Invalid API key: \[REDACTED\]\): fix X-Cerebras-Key$/);
      expect(answer.text).not.to.include(testKeys.cerebras);
    });

    it('an error after the first byte ends the stream with event: error in Anthropic\'s shape, and no message_stop', async function () {
      cerebras.handle(faults.closeMidStream());
      const answer = await call(freeway.url, 'POST', '/v1/messages', hi('claude-sonnet-4-6', { stream: true }), keys);
      expect(answer.status).to.equal(200);
      const events = parseEvents(answer.text);
      expect(events.map((e) => e.event)).to.deep.equal(['message_start', 'ping', 'content_block_start', 'content_block_delta', 'error']);
      const last = events.at(-1)?.data;
      expect(last.error.type).to.equal('api_error');
      expect(last.error.message).to.match(/^The stream from cerebras failed after it started: /);

      const anthropic = new Anthropic({ baseURL: freeway.url, apiKey: 'x', defaultHeaders: keys, maxRetries: 0 });
      const error = await anthropic.messages
        .stream(hi() as Anthropic.MessageCreateParamsNonStreaming)
        .finalMessage()
        .then(() => undefined, (caught: unknown) => caught);
      expect(error).to.be.instanceOf(Anthropic.APIError);
      expect(((error as InstanceType<typeof Anthropic.APIError>).error as any).error.type).to.equal('api_error');
    });

    it('an error event from the upstream mid-stream reaches the caller with the key redacted', async function () {
      cerebras.handle((_req, res) => {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.write(`data: ${JSON.stringify({ id: 'x', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [{ index: 0, delta: { content: 'partial ' }, finish_reason: null }] })}\n\n`);
        res.end(`data: ${JSON.stringify({ error: { message: `Key ${testKeys.cerebras} exceeded its quota`, type: 'rate_limit_error', code: 429 } })}\n\n`);
      });
      const answer = await call(freeway.url, 'POST', '/v1/messages?beta=true', hi('claude-sonnet-4-6', { stream: true }), keyHeaders('cerebras'));
      expect(answer.status).to.equal(200);
      const events = parseEvents(answer.text);
      const last = events.at(-1);
      expect(last?.event).to.equal('error');
      expect(last?.data.error.type).to.equal('api_error');
      expect(last?.data.error.message).to.include('[REDACTED]');
      expect(answer.text).not.to.include(testKeys.cerebras);
    });

    it('GET /v1/models/{id} with anthropic-version: 404 not_found_error; OpenAI\'s shape without the header', async function () {
      expectError(await call(freeway.url, 'GET', '/v1/models/claude-nope'), 404, 'not_found_error', 'Unknown model: claude-nope. GET /v1/models lists the models.');
      const openai = await fetch(`${freeway.url}/v1/models/claude-nope`);
      expect(openai.status).to.equal(404);
      expect(await openai.json()).to.deep.equal({ error: { message: 'Unknown model: claude-nope. GET /v1/models lists the models.', type: 'invalid_request_error', code: 404 } });
    });

    it('chat completions keep OpenAI\'s error shape', async function () {
      const res = await fetch(`${freeway.url}/v1/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json', 'anthropic-version': '2023-06-01' }, body: '{' });
      expect(res.status).to.equal(400);
      expect(await res.json()).to.deep.equal({ error: { message: 'Validation failed: body: not valid JSON', type: 'invalid_request_error', code: 400 } });
    });
  });

  describe('routing on these routes', function () {
    it('fails over from a rate-limited provider to the next, invisibly, and records it in health', async function () {
      groq.handle(faults.rateLimited(30));
      const keys = keyHeaders('groq', 'cerebras');
      const answer = await call(freeway.url, 'POST', '/v1/messages', hi(), keys);
      expect(answer.status, answer.text).to.equal(200);
      expect(answer.json.content).to.deep.equal([{ type: 'text', text: 'from cerebras', citations: null }]);
      expect(answer.json.model).to.equal('claude-sonnet-4-6');
      expect(answer.headers.get('x-freeway-provider')).to.equal('cerebras');
      expect(answer.headers.get('x-freeway-attempts')).to.match(new RegExp(`^groq\\/${G1} 429 \\d+ms, cerebras\\/${C1} 200 \\d+ms$`));
      const health = await getHealth(freeway.url, keys);
      expect(health.providers.groq).to.include({ state: 'rate_limited', retryAfter: 30 });
      expect(health.providers.cerebras).to.include({ state: 'healthy' });

      // The rate-limited key is skipped now; a stream goes straight to Cerebras.
      const stream = await call(freeway.url, 'POST', '/v1/messages', hi('claude-sonnet-4-6', { stream: true }), keys);
      checkStream(stream.text);
      expect(stream.headers.get('x-freeway-attempts')).to.match(new RegExp(`^cerebras\\/${C1} 200 \\d+ms$`));
      expect(groq.requests).to.have.length(1);
    });

    it('output_config: effort is the reasoning effort, format a JSON schema response format', async function () {
      const schema = { type: 'object', properties: { answer: { type: 'string' } }, required: ['answer'] };
      const answer = await call(
        freeway.url,
        'POST',
        '/v1/messages',
        hi('cerebras/gpt-oss-120b', { output_config: { effort: 'medium', format: { type: 'json_schema', schema } } }),
        keyHeaders('cerebras'),
      );
      expect(answer.status, answer.text).to.equal(200);
      const sent = cerebras.requests[0]?.body;
      expect(sent?.reasoning_effort).to.equal('medium');
      await call(freeway.url, 'POST', '/v1/messages', hi('cerebras/gpt-oss-120b', { output_config: { effort: 'max' }, thinking: { type: 'enabled', budget_tokens: 1024 } }), keyHeaders('cerebras'));
      expect(cerebras.requests[1]?.body?.reasoning_effort).to.equal('high');
      expect(sent?.response_format).to.deep.include({ type: 'json_schema' });
      expect((sent?.response_format as { json_schema: { schema: unknown } }).json_schema.schema).to.deep.equal(schema);
    });
  });

  it('the rate limit answers 429 rate_limit_error with Retry-After, on /v1/messages and on Anthropic\'s /v1/models', async function () {
    const limited = await startFreeway({ env: { RATE_LIMIT_MAX: '1', RATE_LIMIT_WINDOW_MS: '60000', CEREBRAS_BASE_URL: cerebras.url } });
    try {
      const keys = keyHeaders('cerebras');
      expect((await call(limited.url, 'POST', '/v1/messages', hi(), keys)).status).to.equal(200);
      const second = await call(limited.url, 'POST', '/v1/messages', hi(), keys);
      expectError(second, 429, 'rate_limit_error', /^Rate limit exceeded\. Retry after \d+ seconds\.$/);
      expect(second.headers.get('retry-after')).to.match(/^\d+$/);
      expectError(await call(limited.url, 'GET', '/v1/models'), 429, 'rate_limit_error', /^Rate limit exceeded/);
      // The same client's OpenAI requests get OpenAI's shape.
      const chat = await fetch(`${limited.url}/v1/chat/completions`, { method: 'POST', body: '{}' });
      expect(chat.status).to.equal(429);
      expect(((await chat.json()) as { error: { type: string; code: number } }).error).to.include({ type: 'rate_limit_error', code: 429 });
    } finally {
      await limited.close();
    }
  });

  it('a CORS preflight from the Anthropic SDK in a browser is allowed', async function () {
    const requested = [
      'anthropic-version',
      'anthropic-beta',
      'anthropic-dangerous-direct-browser-access',
      'x-api-key',
      'x-stainless-arch',
      'x-stainless-lang',
      'x-stainless-os',
      'x-stainless-package-version',
      'x-stainless-retry-count',
      'x-stainless-runtime',
      'x-stainless-runtime-version',
      'x-stainless-timeout',
      'content-type',
      'x-cerebras-key',
      'x-groq-key',
    ];
    const preflight = await fetch(`${freeway.url}/v1/messages`, {
      method: 'OPTIONS',
      headers: { Origin: 'https://app.example', 'Access-Control-Request-Method': 'POST', 'Access-Control-Request-Headers': requested.join(',') },
    });
    expect(preflight.status).to.equal(204);
    expect(preflight.headers.get('access-control-allow-origin')).to.equal('*');
    const allowed = (preflight.headers.get('access-control-allow-headers') ?? '').toLowerCase().split(',').map((name) => name.trim());
    for (const header of requested) expect(allowed, header).to.include(header);

    const actual = await call(freeway.url, 'POST', '/v1/messages', hi(), { Origin: 'https://app.example', ...keyHeaders('cerebras'), 'anthropic-dangerous-direct-browser-access': 'true' });
    expect(actual.status).to.equal(200);
    expect(actual.headers.get('access-control-allow-origin')).to.equal('*');
    expect(actual.headers.get('access-control-expose-headers')?.toLowerCase()).to.include('x-freeway-attempts');
  });

  describe('ANTHROPIC_MODEL_MAP', function () {
    it('routes by the first matching glob; targets may be concrete models', async function () {
      const mapped = await startFreeway({
        env: { ANTHROPIC_MODEL_MAP: 'claude-opus-*=groq/llama-3.3-70b-versatile, claude-*=free:fast, *=free:auto', CEREBRAS_BASE_URL: cerebras.url, GROQ_BASE_URL: groq.url },
      });
      try {
        const keys = keyHeaders('groq', 'cerebras');
        const opus = await call(mapped.url, 'POST', '/v1/messages', hi('claude-opus-4-8'), keys);
        expect(opus.json.model).to.equal('claude-opus-4-8');
        expect(opus.headers.get('x-freeway-model')).to.equal('groq/llama-3.3-70b-versatile');
        const other = await call(mapped.url, 'POST', '/v1/messages', hi('gpt-4o'), keyHeaders('cerebras'));
        expect(other.json.model).to.equal('gpt-4o');
        expect(other.headers.get('x-freeway-model')).to.equal(`cerebras/${CEREBRAS_FIRST}`);
      } finally {
        await mapped.close();
      }
    });

    it('a malformed value or an unknown target fails loadConfig with a message naming it', async function () {
      const plugins = await providerPlugins();
      expect(() => loadConfig({ ANTHROPIC_MODEL_MAP: 'claude-*' }, plugins)).to.throw(
        'ANTHROPIC_MODEL_MAP must be comma-separated glob=target pairs such as claude-*=free:tool-use, got "claude-*"',
      );
      expect(() => loadConfig({ ANTHROPIC_MODEL_MAP: '*haiku*=free:fast,claude-*=groq/nope' }, plugins)).to.throw(
        'ANTHROPIC_MODEL_MAP maps claude-* to groq/nope, which is not a model or alias of the catalog (GET /v1/models lists them)',
      );
      const config = loadConfig({}, plugins);
      expect(config.api.anthropicModelMap.map(({ glob, target }) => `${glob}=${target}`)).to.deep.equal(['*haiku*=free:fast', 'claude-*=free:tool-use']);
      const [haiku] = config.api.anthropicModelMap;
      expect(haiku?.pattern.test('claude-haiku-4-5')).to.equal(true);
      expect(haiku?.pattern.test('claude-sonnet-4-6')).to.equal(false);
    });

    it('Freeway does not start with a bad value, saying why in one line', async function () {
      const proc = spawn(process.execPath, [mainScript], {
        env: { ...process.env, PORT: '0', HOST: '127.0.0.1', ANTHROPIC_MODEL_MAP: 'claude-*=free:nothing' },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let stderr = '';
      proc.stderr.setEncoding('utf8');
      proc.stderr.on('data', (text: string) => (stderr += text));
      const [code] = await once(proc, 'exit');
      expect(code).to.equal(1);
      expect(stderr).to.equal('Freeway cannot start: ANTHROPIC_MODEL_MAP maps claude-* to free:nothing, which is not a model or alias of the catalog (GET /v1/models lists them)\n');
    });
  });

  it('logs the route of a Messages request without the key', async function () {
    await call(freeway.url, 'POST', '/v1/messages', hi(), keyHeaders('cerebras'));
    const line = freeway.logs.find((text) => text.includes('POST /v1/messages 200'));
    expect(line, freeway.logs.join('\n')).to.be.a('string');
    expect(freeway.logs.join('\n')).not.to.include(testKeys.cerebras);
  });
});
