import { expect } from 'chai';
import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { buildCatalog, isAlias } from '../../catalog/catalog.ts';
import type { ProviderPlugin } from '../../providers/types.ts';
import { createApp } from '../../server/app.ts';
import { loadConfig } from '../../server/config/index.ts';
import { createLogger } from '../../server/http/process-logger.ts';
import type { HealthStore } from '../../server/state/health-records.ts';
import { createMemoryHealthStore } from '../../server/routing/health-policy.ts';
import { startFreeway, type RunningFreeway, type StartOptions } from '../support/freeway.ts';
import { expectError } from '../support/errors.ts';
import { keyHeaders, keylessOffer, testKeys } from '../support/keys.ts';
import { json, openAIError, openAIText, startUpstream, type FakeUpstream, type UpstreamHandler } from '../support/upstream.ts';

const providerIds = Object.keys(testKeys);
const hi = [{ role: 'user', content: 'hi' }];

/** Every provider's base URL pointed at the fake upstream. */
function baseURLEnv(url: string): Record<string, string> {
  return Object.fromEntries(providerIds.map((id) => [`${id.toUpperCase()}_BASE_URL`, url]));
}

function chat(freeway: RunningFreeway, body: unknown, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(`${freeway.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
}

/** The token of `Authorization: Bearer <token>` or Google's key header. */
function sentKey(headers: Record<string, string | string[] | undefined>): string {
  const auth = headers.authorization;
  if (typeof auth === 'string') return auth.replace(/^Bearer /, '');
  return String(headers['x-goog-api-key'] ?? '');
}

describe('errors over HTTP', () => {
  let upstream: FakeUpstream;
  let freeway: RunningFreeway;

  before(async () => {
    upstream = await startUpstream((req, res) => openAIText(res, 'Hello', req));
    freeway = await startFreeway({ env: { ...baseURLEnv(upstream.url), BODY_LIMIT: '1kb' } });
  });

  after(async () => {
    await freeway.close();
    await upstream.close();
  });

  describe('400 validation', () => {
    const cases: ReadonlyArray<readonly [string, unknown, string]> = [
      ['messages not an array', { model: 'free:auto', messages: 'hi' }, 'Validation failed: messages: must be array'],
      ['missing model', { messages: hi }, 'Validation failed: model: is required'],
      ['missing messages', { model: 'free:auto' }, 'Validation failed: messages: is required'],
      ['model not a string', { model: 7, messages: hi }, 'Validation failed: model: must be string'],
      [
        'tool message without tool_call_id',
        { model: 'free:auto', messages: [{ role: 'user', content: 'hi' }, { role: 'tool', content: '42' }] },
        'Validation failed: messages.1.tool_call_id: is required',
      ],
      [
        'unknown role',
        { model: 'free:auto', messages: [{ role: 'wizard', content: 'hi' }] },
        'Validation failed: messages.0.role: must be one of system, developer, user, assistant, tool, function',
      ],
      ['message without role', { model: 'free:auto', messages: [{ content: 'hi' }] }, 'Validation failed: messages.0.role: is required'],
      ['user content an empty array', { model: 'free:auto', messages: [{ role: 'user', content: [] }] }, 'Validation failed: messages.0.content: must NOT have fewer than 1 items'],
      ['more than 4 stop sequences', { model: 'free:auto', messages: hi, stop: ['a', 'b', 'c', 'd', 'e'] }, 'Validation failed: stop: must NOT have more than 4 items'],
      ['tool_choice object without function', { model: 'free:auto', messages: hi, tool_choice: { type: 'function' } }, 'Validation failed: tool_choice.function: is required'],
      [
        'unknown content part type',
        { model: 'free:auto', messages: [{ role: 'user', content: [{ type: 'text', text: 'a' }, { type: 'audio', data: 'x' }] }] },
        'Validation failed: messages.0.content.1.type: must be one of text, image_url, file',
      ],
      [
        'image part without image_url',
        { model: 'free:auto', messages: [{ role: 'user', content: [{ type: 'image_url' }] }] },
        'Validation failed: messages.0.content.0.image_url: is required',
      ],
      [
        'text part with a non-string text',
        { model: 'free:auto', messages: [{ role: 'user', content: [{ type: 'text', text: 5 }] }] },
        'Validation failed: messages.0.content.0.text: must be string',
      ],
      [
        'content neither string nor array',
        { model: 'free:auto', messages: [{ role: 'user', content: 5 }] },
        'Validation failed: messages.0.content: must be string or array',
      ],
      ['temperature above 2', { model: 'free:auto', messages: hi, temperature: 3 }, 'Validation failed: temperature: must be <= 2'],
      ['temperature below 0', { model: 'free:auto', messages: hi, temperature: -1 }, 'Validation failed: temperature: must be >= 0'],
      ['temperature not a number', { model: 'free:auto', messages: hi, temperature: 'hot' }, 'Validation failed: temperature: must be number or null'],
      ['max_tokens not an integer', { model: 'free:auto', messages: hi, max_tokens: 1.5 }, 'Validation failed: max_tokens: must be integer or null'],
      ['empty messages', { model: 'free:auto', messages: [] }, 'Validation failed: messages: must NOT have fewer than 1 items'],
      [
        'unknown tool_choice',
        { model: 'free:auto', messages: hi, tool_choice: 'maybe' },
        'Validation failed: tool_choice: must be auto or none or required or object',
      ],
      ['n > 1', { model: 'free:auto', messages: hi, n: 2 }, 'Validation failed: n: only n = 1 is supported'],
      ['body an array', [{ model: 'free:auto', messages: hi }], 'Validation failed: body: must be object'],
      ['body a string', '"free:auto"', 'Validation failed: body: must be object'],
      ['body a number', '42', 'Validation failed: body: must be object'],
      ['body null', 'null', 'Validation failed: body: must be object'],
      ['body empty (read as {})', '', 'Validation failed: model: is required'],
    ];
    for (const [name, body, message] of cases) {
      it(`${name} -> ${message}`, async () => {
        await expectError(await chat(freeway, body, keyHeaders('groq')), 400, 'invalid_request_error', message);
      });
    }

    it('never reaches an upstream', () => {
      expect(upstream.requests).to.have.length(0);
    });
  });

  describe('400 malformed JSON', () => {
    it('a truncated JSON body', async () => {
      await expectError(await chat(freeway, '{"model": "free:auto", "messages": ['), 400, 'invalid_request_error', 'Validation failed: body: not valid JSON');
    });

    it('a body that is not JSON at all, with no content type', async () => {
      const response = await fetch(`${freeway.url}/v1/chat/completions`, { method: 'POST', body: 'model=free:auto&messages=hi' });
      await expectError(response, 400, 'invalid_request_error', 'Validation failed: body: not valid JSON');
    });
  });

  describe('400 malformed Cloudflare key', () => {
    const message = 'X-Cloudflare-Key must have the form account_id:api_token.';
    for (const value of ['NoColonCloudflareSecretValue123', ':OnlyTheTokenSecretValue123', 'OnlyTheAccountSecret123:']) {
      it(`"${value.replace(/Secret.*?(?=:|$)/, '…')}" on chat completions names the header and form, never the value`, async () => {
        const reply = await expectError(
          await chat(freeway, { model: 'free:auto', messages: hi }, { ...keyHeaders('groq'), 'X-Cloudflare-Key': value }),
          400,
          'invalid_request_error',
          message,
        );
        expect(reply.text).to.not.include(value.replace(':', ''));
      });
    }

    it('on /health as well', async () => {
      const response = await fetch(`${freeway.url}/health`, { headers: { 'X-Cloudflare-Key': 'NoColonCloudflareSecretValue123' } });
      const reply = await expectError(response, 400, 'invalid_request_error', message);
      expect(reply.text).to.not.include('NoColonCloudflareSecretValue123');
    });
  });

  describe('401 missing keys', () => {
    it('an alias with no key for any candidate lists the headers that would serve it', async () => {
      // The providers with a non-deprecated vision model, in priority order (the catalog's provider order).
      const backing = freeway.catalog.providers.filter((provider) => provider.models.some((model) => !model.deprecated && model.capabilities.includes('vision')));
      const others = freeway.catalog.providers.filter((provider) => !backing.includes(provider)).map((provider) => provider.id);
      expect(backing.length, 'providers with a vision model').to.be.greaterThan(1);
      expect(others.length, 'providers without one').to.be.greaterThan(1);
      const visionHeaders = backing.map((provider) => provider.header).join(', ');
      const alias = freeway.catalog.byId.get('free:vision');
      expect(alias && isAlias(alias)).to.equal(true);
      if (alias && isAlias(alias)) {
        expect(new Set(alias.models.map((model) => model.provider.header))).to.deep.equal(new Set(visionHeaders.split(', ')));
      }
      // A caller on loopback (ANONYMOUS=local lets it) who sent no key header is also offered the keyless providers among them.
      const offer = keylessOffer(backing.filter((provider) => provider.anonymous).map((provider) => provider.name));
      const message = `No provider key for free:vision. Send one of: ${visionHeaders}.${offer}`;
      await expectError(await chat(freeway, { model: 'free:vision', messages: hi }), 401, 'authentication_error', message);
      // Keys of providers that do not back the alias do not help: a 400 saying so, not a 401.
      const sent = others.slice(0, 2);
      const reply = await expectError(await chat(freeway, { model: 'free:vision', messages: hi }, keyHeaders(...sent)), 400, 'invalid_request_error');
      const said = /^Your keys \((.+)\) have no model for free:vision that takes images; keys of (.+) do\.$/.exec(reply.message);
      expect(said, reply.message).to.not.equal(null);
      expect(new Set(said?.[1]?.split(', '))).to.deep.equal(new Set(sent.map((id) => freeway.catalog.providers.find((provider) => provider.id === id)?.header)));
      expect(said?.[2]).to.equal(visionHeaders);
    });

    it('a pinned model without its provider key names the header', async () => {
      await expectError(
        await chat(freeway, { model: 'groq/llama-3.3-70b-versatile', messages: hi }, keyHeaders('cerebras', 'google')),
        401,
        'authentication_error',
        'groq/llama-3.3-70b-versatile needs the X-Groq-Key header.',
      );
    });
  });

  describe('404', () => {
    it('an unknown pinned model', async () => {
      await expectError(
        await chat(freeway, { model: 'groq/nope', messages: hi }, keyHeaders('groq')),
        404,
        'invalid_request_error',
        'Unknown model: groq/nope. GET /v1/models lists the models.',
      );
    });

    it('an unknown alias', async () => {
      await expectError(
        await chat(freeway, { model: 'free:nope', messages: hi }, keyHeaders('groq')),
        404,
        'invalid_request_error',
        'Unknown model: free:nope. GET /v1/models lists the models.',
      );
    });

    it('GET /v1/models/{unknown id}', async () => {
      await expectError(
        await fetch(`${freeway.url}/v1/models/groq/nope`),
        404,
        'invalid_request_error',
        'Unknown model: groq/nope. GET /v1/models lists the models.',
      );
    });

    it('a path that is not valid percent-encoding is a 400, not a 500, and its error log holds no key', async () => {
      for (const path of ['/v1/models/%ZZ', '/v1/models/gsk_SecretKey0123456789%E0%A4%A']) {
        await expectError(await fetch(`${freeway.url}${path}`), 400, 'invalid_request_error', 'Validation failed: path: not valid percent-encoding');
      }
      expect(freeway.logs.join('\n')).to.not.include('SecretKey0123456789');
    });

    for (const [method, path] of [
      ['GET', '/v2/foo'],
      ['POST', '/v1/completions'],
      ['POST', '/'],
      ['DELETE', '/v1/chat'],
    ] as const) {
      it(`an unknown route: ${method} ${path}`, async () => {
        await expectError(
          await fetch(`${freeway.url}${path}`, { method }),
          404,
          'invalid_request_error',
          `Unknown route: ${method} ${path}. Freeway serves GET /v1/models (the models), GET /health (the providers' health) and the APIs under /v1; its README describes them.`,
        );
      });
    }
  });

  describe('405 with an Allow header', () => {
    const routes: ReadonlyArray<readonly [string, string, readonly string[]]> = [
      ['/health', 'GET, HEAD', ['POST', 'PUT', 'DELETE', 'PATCH']],
      ['/v1/models', 'GET, HEAD', ['POST', 'PUT', 'DELETE', 'PATCH']],
      ['/v1/models/groq/llama-3.3-70b-versatile', 'GET, HEAD', ['POST', 'PUT', 'DELETE']],
      ['/v1/chat/completions', 'POST', ['GET', 'PUT', 'DELETE', 'PATCH']],
    ];
    for (const [path, allow, methods] of routes) {
      for (const method of methods) {
        it(`${method} ${path}`, async () => {
          const reply = await expectError(
            await fetch(`${freeway.url}${path}`, { method }),
            405,
            'invalid_request_error',
            `Method ${method} is not allowed on ${path}. Allowed: ${allow}.`,
          );
          expect(reply.headers.get('allow')).to.equal(allow);
        });
      }
    }
  });

  describe('413 body over BODY_LIMIT', () => {
    it('a body just over 1kb', async () => {
      const body = JSON.stringify({ model: 'free:auto', messages: [{ role: 'user', content: 'x'.repeat(1100) }] });
      expect(Buffer.byteLength(body)).to.be.greaterThan(1024);
      await expectError(await chat(freeway, body, keyHeaders('groq')), 413, 'invalid_request_error', 'Request body larger than 1kb.');
    });

    it('a body just under 1kb is read (and here fails validation instead)', async () => {
      const body = JSON.stringify({ model: 'free:auto', messages: 'x'.repeat(900) });
      expect(Buffer.byteLength(body)).to.be.lessThan(1024);
      await expectError(await chat(freeway, body), 400, 'invalid_request_error', 'Validation failed: messages: must be array');
    });

    it('a chunked body (no Content-Length) over the limit', async () => {
      const big = JSON.stringify({ model: 'free:auto', messages: [{ role: 'user', content: 'x'.repeat(5000) }] });
      const stream = new ReadableStream<Uint8Array>({
        start(controller) {
          const bytes = new TextEncoder().encode(big);
          for (let i = 0; i < bytes.length; i += 500) controller.enqueue(bytes.slice(i, i + 500));
          controller.close();
        },
      });
      const res = await fetch(`${freeway.url}/v1/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: stream,
        duplex: 'half',
      } as RequestInit & { duplex: 'half' });
      await expectError(res, 413, 'invalid_request_error', 'Request body larger than 1kb.');
    });
  });

  describe('415 bodies Freeway does not read', () => {
    for (const [name, headers] of [
      ['gzip-compressed', { 'content-type': 'application/json', 'content-encoding': 'gzip' }],
      ['in another charset', { 'content-type': 'application/json; charset=latin1' }],
    ] as const) {
      it(`a body ${name}`, async () => {
        const res = await fetch(`${freeway.url}/v1/chat/completions`, { method: 'POST', headers, body: '{}' });
        await expectError(res, 415, 'invalid_request_error', 'Request body must be uncompressed UTF-8 JSON.');
      });
    }

    it('an explicit utf-8 charset is fine', async () => {
      const res = await fetch(`${freeway.url}/v1/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json; charset=UTF-8' }, body: '{}' });
      await expectError(res, 400, 'invalid_request_error', 'Validation failed: model: is required');
    });
  });
});

describe('errors over HTTP: rate limit', () => {
  it('429 rate_limit_error with Retry-After', async () => {
    const freeway = await startFreeway({ env: { RATE_LIMIT_MAX: '1', RATE_LIMIT_WINDOW_MS: '60000' } });
    try {
      expect((await fetch(`${freeway.url}/v1/models`)).status).to.equal(200);
      const reply = await expectError(await fetch(`${freeway.url}/v1/models`), 429, 'rate_limit_error');
      const seconds = reply.headers.get('retry-after');
      expect(seconds).to.match(/^\d+$/);
      expect(Number(seconds)).to.be.within(59, 60);
      expect(reply.message).to.equal(`Rate limit exceeded. Retry after ${seconds} seconds.`);
      // Refused before any route ran, the line still names Freeway's own path.
      expect(JSON.parse(freeway.logs.at(-1) as string).msg).to.match(/^GET \/v1\/models 429 \d+ms$/);
    } finally {
      await freeway.close();
    }
  });
});

describe('errors over HTTP: upstream failures', () => {
  let upstream: FakeUpstream;
  let freeway: RunningFreeway | undefined;

  /** A fresh Freeway (fresh provider health) whose providers all reach `handler`. */
  async function start(handler: UpstreamHandler, options: StartOptions = {}): Promise<RunningFreeway> {
    upstream.handle(handler);
    freeway = await startFreeway({ ...options, env: { ...baseURLEnv(upstream.url), ...options.env } });
    return freeway;
  }

  before(async () => {
    upstream = await startUpstream();
  });

  afterEach(async () => {
    await freeway?.close();
    freeway = undefined;
    upstream.requests.length = 0;
  });

  after(async () => {
    await upstream.close();
  });

  it('502 freeway_all_providers_failed lists each provider with upstream status and message', async () => {
    const fw = await start((req, res) => {
      const key = sentKey(req.headers);
      if (key === testKeys.groq) openAIError(res, 429, 'Rate limit reached for requests', { 'retry-after': '7' });
      else if (key === testKeys.cerebras) openAIError(res, 401, 'Wrong API key');
      else openAIError(res, 500, `unexpected key ${key.length}`);
    });
    const reply = await expectError(
      await chat(fw, { model: 'free:fast', messages: hi }, keyHeaders('groq', 'cerebras')),
      502,
      'freeway_all_providers_failed',
      'All providers failed: groq: 429 Rate limit reached for requests; cerebras: the provider refused the key (401 Wrong API key): fix X-Cerebras-Key',
    );
    expect(reply.headers.get('retry-after')).to.equal('7');
    expect(reply.headers.get('x-freeway-attempts')).to.match(/^groq\/\S+ 429 \d+ms, cerebras\/\S+ 401 \d+ms$/);
    expect(upstream.requests).to.have.length(2);
  });

  it('502 freeway_provider_error for a pinned model', async () => {
    const fw = await start((_req, res) => openAIError(res, 500, 'Upstream exploded'));
    const reply = await expectError(
      await chat(fw, { model: 'groq/llama-3.3-70b-versatile', messages: hi }, keyHeaders('groq', 'cerebras')),
      502,
      'freeway_provider_error',
      'Provider failed: groq: 500 Upstream exploded',
    );
    expect(reply.headers.get('x-freeway-attempts')).to.match(/^groq\/llama-3\.3-70b-versatile 500 \d+ms$/);
    // Pinned means that provider only: no failover to cerebras.
    expect(upstream.requests).to.have.length(1);
  });

  it('502 freeway_provider_error: connection error, with the system\'s code (nothing listens where CEREBRAS_BASE_URL points)', async () => {
    const closed = createServer();
    closed.listen(0, '127.0.0.1');
    await once(closed, 'listening');
    const { port } = closed.address() as AddressInfo;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const fw = await start((_req, res) => openAIText(res, 'unused'), { env: { CEREBRAS_BASE_URL: `http://127.0.0.1:${port}` } });
    await expectError(
      await chat(fw, { model: 'cerebras/llama-3.3-70b', messages: hi }, keyHeaders('cerebras')),
      502,
      'freeway_provider_error',
      'Provider failed: cerebras: connection error (ECONNREFUSED): this machine could not reach the provider',
    );
  });

  it('502 freeway_provider_error: timeout before the first token', async () => {
    const fw = await start(
      (_req, res) => {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.flushHeaders();
        // Never sends a token.
      },
      { env: { FIRST_TOKEN_TIMEOUT_MS: '200' } },
    );
    const started = Date.now();
    await expectError(
      await chat(fw, { model: 'cerebras/llama-3.3-70b', messages: hi }, keyHeaders('cerebras')),
      502,
      'freeway_provider_error',
      'Provider failed: cerebras: timeout',
    );
    expect(Date.now() - started).to.be.lessThan(1500);
  });

  it('400 when the pinned provider rejects the request itself', async () => {
    const fw = await start((_req, res) => openAIError(res, 400, "'tools.0.function.parameters' is invalid"));
    await expectError(
      await chat(fw, { model: 'groq/llama-3.3-70b-versatile', messages: hi }, keyHeaders('groq')),
      400,
      'invalid_request_error',
      "groq rejected the request: 400 'tools.0.function.parameters' is invalid",
    );
  });

  it('keys the upstream echoes in its error message are redacted in the 502 message', async () => {
    const foreign = ['ghp_Foreign_Token-0123456789abc', 'github_pat_11ABCDEF_ghij-KLMN0123456789'];
    const fw = await start((req, res) => {
      const key = sentKey(req.headers);
      const account = /\/accounts\/([^/]+)\//.exec(req.path)?.[1];
      const text = `Invalid API key ${key}${account ? ` for account ${account}` : ''}; also seen: ${foreign.join(' ')}`;
      if (req.path.includes('generateContent')) json(res, 401, { error: { code: 401, message: text, status: 'UNAUTHENTICATED' } });
      else openAIError(res, 401, text);
    });
    const sent = ['groq', 'openrouter', 'cloudflare', 'mistral', 'deepseek'];
    const reply = await expectError(await chat(fw, { model: 'free:auto', messages: hi }, keyHeaders(...sent)), 502, 'freeway_all_providers_failed');
    // Every provider was tried and its echo made it into the message, redacted.
    expect(upstream.requests).to.have.length(sent.length);
    for (const id of sent) expect(reply.message).to.include(`${id}: the provider refused the key (401 Invalid API key [REDACTED]`);
    expect(reply.message).to.include('cloudflare: the provider refused the key (401 Invalid API key [REDACTED] for account [REDACTED]');
    expect(reply.message).to.match(/^All providers failed: \w+: the provider refused the key \(401 /);
    expect(reply.message).to.include('also seen: [REDACTED] [REDACTED]');
    for (const id of sent) {
      const key = testKeys[id] as string;
      expect(reply.text).to.not.include(key);
      for (const part of key.split(':')) expect(reply.text).to.not.include(part);
    }
    for (const token of foreign) {
      for (const piece of token.split(/[-_]/).filter((piece) => piece.length >= 4)) expect(reply.text).to.not.include(piece);
    }
  });

  it('500 server_error for an unexpected internal error, without its message or stack', async () => {
    const secret = testKeys.groq as string;
    const memory = createMemoryHealthStore();
    const broken: HealthStore = {
      ...memory,
      async get() {
        throw new Error(`health store is down (last key ${secret})`);
      },
    };
    const fw = await start((req, res) => openAIText(res, 'Hello', req), { healthStore: broken });
    try {
      for (const response of [
        await fetch(`${fw.url}/health`, { headers: keyHeaders('groq') }),
        await chat(fw, { model: 'free:fast', messages: hi }, keyHeaders('groq')),
      ]) {
        const reply = await expectError(response, 500, 'server_error', 'Internal server error.');
        expect(reply.text).to.not.include('health store');
        expect(reply.text).to.not.include(secret);
      }
      expect(upstream.requests).to.have.length(0);
    } finally {
      await memory.close();
    }
  });

  it('a plugin that throws before anything is sent is our bug: a 500, not a crash and not the provider\'s failure', async () => {
    const plugin: ProviderPlugin = {
      id: 'broken',
      keyUrl: 'https://example.com/keys',
      tier: { tier: 'free', source: 'https://example.com/pricing', checked: '2026-11-25' },
      name: 'Broken',
      header: 'X-Broken-Key',
      keyPatterns: [],
      baseURL: 'http://127.0.0.1:9',
      priority: 1,
      models: [{ id: 'model-1', capabilities: ['fast'], contextWindow: 8192 }],
      // The key reaches a plugin only through authHeaders; what it throws with it must be redacted.
      authHeaders: (key) => {
        throw new Error(`factory broke for ${key}`);
      },
      createModel: () => ({}) as Awaited<ReturnType<ProviderPlugin['createModel']>>,
    };
    const catalog = buildCatalog([plugin]);
    const config = loadConfig({ RATE_LIMIT_MAX: '1000' }, [plugin]);
    const health = createMemoryHealthStore();
    const app = createApp({ config, catalog, logger: createLogger('silent'), healthStore: health });
    const server = createServer(app.listener);
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      const secret = 'Zr8Kq3Vx6Lm1Tp4Wn9Bc2Hd7';
      const send = (model: string): Promise<Response> =>
        fetch(`${url}/v1/chat/completions`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'X-Broken-Key': secret },
          body: JSON.stringify({ model, messages: hi }),
        });
      for (let i = 0; i < 3; i++) {
        const pinned = await expectError(await send('broken/model-1'), 500, 'server_error', 'Internal server error.');
        expect(pinned.text).to.not.include(secret);
        await expectError(await send('free:fast'), 500, 'server_error', 'Internal server error.');
      }
      const state = (await (await fetch(`${url}/health`, { headers: { 'X-Broken-Key': secret } })).json()) as { providers: Record<string, unknown> };
      expect(state.providers.broken).to.deep.equal({ state: 'healthy', consecutiveFailures: 0 });
    } finally {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await app.close();
    }
  });
});
