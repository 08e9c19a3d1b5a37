import { expect } from 'chai';
import { once } from 'node:events';
import { connect } from 'node:net';
import { Redis } from 'ioredis';
import { startFreeway, type RunningFreeway } from '../support/freeway.ts';
import { expectError } from '../support/errors.ts';
import { headerFor, testKeys } from '../support/keys.ts';
import { skipWithoutRedis, startRedis, type RunningRedis } from '../support/redis.ts';
import { json, startUpstream, type FakeUpstream, type SeenRequest } from '../support/upstream.ts';

/**
 * Providers answer a bad key with their own error body, and many put the key
 * in it, masked: `Incorrect API key provided: 7xW1RA4cMNeuoNZm********FRWP`.
 * The visible part is a secret too. These are the documented invalid-key
 * envelopes of the providers whose keys have no format of their own (or whose
 * mask drops the prefix), with that masked echo inside, as observed.
 */
type Envelope = (message: string) => unknown;
const invalidKeyBodies: Readonly<Record<string, { status: number; body: Envelope; message: (mask: string) => string }>> = {
  mistral: { status: 401, body: (message) => ({ message, request_id: 'c61f2f15feca71626a990e3740f99245' }), message: (mask) => `Incorrect API key provided: ${mask}` },
  together: {
    status: 401,
    body: (message) => ({ error: { message, type: 'invalid_request_error', param: null, code: 'invalid_api_key' } }),
    message: (mask) => `Invalid API key provided: ${mask}. You can find your API key at https://api.together.xyz/settings/api-keys.`,
  },
  deepinfra: { status: 401, body: (message) => ({ error: { message, type: 'invalid_request_error', param: null, code: null } }), message: (mask) => `Not authenticated: invalid API key ${mask}` },
  fireworks: { status: 401, body: (message) => ({ error: { object: 'error', type: 'invalid_request_error', message } }), message: (mask) => `The API key you provided is invalid: ${mask}` },
  cerebras: { status: 401, body: (message) => ({ message, type: 'invalid_request_error', param: 'api_key', code: 'wrong_api_key' }), message: (mask) => `Wrong API Key: ${mask}` },
  sambanova: { status: 401, body: (message) => ({ error: { code: null, message, param: null, type: 'invalid_request_error' } }), message: (mask) => `Invalid API key provided: ${mask}` },
  cohere: { status: 401, body: (message) => ({ message }), message: (mask) => `invalid api token: ${mask}` },
  deepseek: {
    status: 401,
    body: (message) => ({ error: { message, type: 'authentication_error', param: null, code: 'invalid_request_error' } }),
    message: (mask) => `Authentication Fails, Your api key: ${mask} is invalid`,
  },
  nvidia: { status: 401, body: (message) => ({ error: { message, type: 'invalid_request_error', code: 401 } }), message: (mask) => `Authentication failed: invalid API key ${mask}` },
  cloudflare: {
    status: 401,
    body: (message) => ({ result: null, success: false, errors: [{ code: 10000, message }], messages: [] }),
    message: (mask) => `Authentication error: ${mask}`,
  },
};

/** NVIDIA and Cloudflare keys without their usual prefix: no pattern knows them. */
const keys: Readonly<Record<string, string>> = {
  ...testKeys,
  nvidia: 'Xk4Tq9Lm2Zp7Rw3Nv8Bj5Hc1Yf6Gd0SsUaQe',
  cloudflare: 'a1b2c3d4e5f60718293a4b5c6d7e8f90:q8Zt3Lm7Xw2Rk9Pv4Nj6Hb1Yc5Td0GsAe',
};

/** How the upstream masks the key it was sent. */
const masks: Readonly<Record<string, (key: string) => string>> = {
  'first 16 and last 4': (key) => `${key.slice(0, 16)}********${key.slice(-4)}`,
  'a middle run of 12': (key) => `****${key.slice(6, 18)}****`,
  'upper-cased first 10': (key) => `${key.slice(0, 10).toUpperCase()}...`,
};

/** Every run of 8 characters of `key` found in `text`, in any case. */
export function keyFragments(text: string, key: string): string[] {
  const lower = text.toLowerCase();
  const found: string[] = [];
  for (const secret of [key, ...key.split(':')]) {
    for (let i = 0; i + 8 <= secret.length; i++) {
      const piece = secret.slice(i, i + 8);
      if (lower.includes(piece.toLowerCase())) found.push(piece);
    }
  }
  return found;
}

function bearer(request: SeenRequest): string {
  return String(request.headers.authorization ?? '').replace(/^Bearer /, '');
}

function modelOf(freeway: RunningFreeway, provider: string): string {
  const model = freeway.catalog.models.find((entry) => entry.provider.id === provider && !entry.spec.deprecated);
  if (!model) throw new Error(`no model for ${provider}`);
  return model.id;
}

function chat(freeway: RunningFreeway, model: string, headers: Record<string, string>): Promise<Response> {
  return fetch(`${freeway.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify({ model, messages: [{ role: 'user', content: 'hi' }] }),
  });
}

describe('masked keys that providers echo never reach the caller, the logs or the store', () => {
  let upstream: FakeUpstream;
  let freeway: RunningFreeway;

  before(async () => {
    upstream = await startUpstream();
    const env = Object.fromEntries(Object.keys(invalidKeyBodies).map((id) => [`${id.toUpperCase()}_BASE_URL`, upstream.url]));
    freeway = await startFreeway({ env });
  });

  after(async () => {
    await freeway.close();
    await upstream.close();
  });

  for (const [maskName, maskOf] of Object.entries(masks)) {
    for (const provider of Object.keys(invalidKeyBodies)) {
      it(`${provider}, echoing ${maskName}: not in the 502, X-Freeway-Attempts, the skipped reason or the log`, async () => {
        const key = keys[provider] as string;
        const fixture = invalidKeyBodies[provider];
        if (!fixture) throw new Error(`no fixture for ${provider}`);
        // The upstream masks the key it was sent (Cloudflare's token half).
        upstream.handle((request, res) => json(res, fixture.status, fixture.body(fixture.message(maskOf(bearer(request))))));
        const headers = { [headerFor(provider)]: key };
        const logsBefore = freeway.logs.length;

        const pinned = await chat(freeway, modelOf(freeway, provider), headers);
        const attempts = pinned.headers.get('x-freeway-attempts') ?? '';
        const reply = await expectError(pinned, 502, 'freeway_provider_error');
        expect(reply.message).to.match(new RegExp(`^Provider failed: ${provider}: the provider refused the key \\(401 .*\\): fix ${headerFor(provider)}$`));
        expect(attempts).to.match(new RegExp(`^${provider}/\\S+ 401 \\d+ms$`));
        // The alias now skips the key and says why: the stored reason.
        const skipped = await expectError(await chat(freeway, 'free:auto', headers), 502, 'freeway_all_providers_failed');
        expect(skipped.message).to.include(`${provider}: the provider refused the key earlier (401 `);

        for (const [where, text] of [
          ['the 502', reply.text],
          ['X-Freeway-Attempts', attempts],
          ['the skipped reason', skipped.text],
          ['the log', freeway.logs.slice(logsBefore).join('\n')],
        ] as const) {
          expect(keyFragments(text, key), where).to.deep.equal([]);
        }
      });
    }
  }
});

describe('masked key echoes in Redis', function () {
  this.timeout(20_000);
  let redis: RunningRedis;
  let peek: Redis;
  let upstream: FakeUpstream;
  let freeway: RunningFreeway;

  before(async function () {
    skipWithoutRedis(this);
    redis = await startRedis();
    peek = new Redis(redis.url, { maxRetriesPerRequest: 1 });
    upstream = await startUpstream((request, res) => {
      const fixture = invalidKeyBodies.together;
      json(res, 401, fixture?.body(fixture.message(masks['first 16 and last 4']?.(bearer(request)) ?? '')));
    });
    freeway = await startFreeway({
      env: { REDIS_URL: redis.url, KEY_HASH_SECRET: 'test-secret-for-key-hashes-0123456789', TOGETHER_BASE_URL: upstream.url, MISTRAL_BASE_URL: upstream.url },
    });
  });

  after(async () => {
    await freeway?.close();
    await upstream?.close();
    peek?.disconnect();
    await redis?.kill();
  });

  for (const provider of ['together', 'mistral']) {
    it(`${provider}: the reason kept for an hour holds no run of the key`, async () => {
      const key = keys[provider] as string;
      await expectError(await chat(freeway, modelOf(freeway, provider), { [headerFor(provider)]: key }), 502, 'freeway_provider_error');
      const names = await peek.keys(`freeway:health:${provider}:*`);
      expect(names).to.have.length(1);
      const record = JSON.parse((await peek.get(names[0] as string)) ?? '{}') as { state?: string; reason?: string };
      expect(record.state).to.equal('invalid_key');
      expect(record.reason).to.match(/^401 /);
      expect(keyFragments(JSON.stringify(record), key)).to.deep.equal([]);
    });
  }
});

describe('key headers outside printable ASCII', () => {
  let upstream: FakeUpstream;
  let freeway: RunningFreeway;

  before(async () => {
    upstream = await startUpstream();
    freeway = await startFreeway({ env: { MISTRAL_BASE_URL: upstream.url } });
  });

  after(async () => {
    await freeway.close();
    await upstream.close();
  });

  /** Sends raw header bytes, as fetch would refuse to. Returns the status line and the body. */
  async function raw(path: string, headerLine: Buffer, body = ''): Promise<{ status: number; body: string }> {
    const { port } = new URL(freeway.url);
    const socket = connect(Number(port), '127.0.0.1');
    await once(socket, 'connect');
    const head = `${body ? 'POST' : 'GET'} ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n`;
    socket.end(Buffer.concat([Buffer.from(head, 'latin1'), headerLine, Buffer.from(`\r\n\r\n${body}`, 'utf8')]));
    const chunks: Buffer[] = [];
    for await (const chunk of socket) chunks.push(chunk as Buffer);
    const text = Buffer.concat(chunks).toString('utf8');
    return { status: Number(text.slice(9, 12)), body: text.slice(text.indexOf('\r\n\r\n') + 4) };
  }

  const secret = 'Wq8Er3Ty6Ui1Op4As7Df2Gh5Jk9Lz0Xc';
  const values: ReadonlyArray<readonly [string, Buffer]> = [
    ['a latin-1 byte', Buffer.concat([Buffer.from(`X-Mistral-Key: ${secret}`), Buffer.from([0xe9]), Buffer.from('Q')])],
    ['UTF-8 bytes', Buffer.from(`X-Mistral-Key: ${secret}\u00e9Q`, 'utf8')],
    ['a tab inside', Buffer.from(`X-Mistral-Key: ${secret}\tQ`)],
  ];
  for (const [name, line] of values) {
    for (const path of ['/v1/chat/completions', '/health']) {
      it(`${name} on ${path}: 400 naming the header, never echoing the value`, async () => {
        const body = path === '/health' ? '' : JSON.stringify({ model: 'free:auto', messages: [{ role: 'user', content: 'hi' }] });
        const reply = await raw(path, line, body);
        expect(reply.status, reply.body).to.equal(400);
        expect(JSON.parse(reply.body)).to.deep.equal({
          error: { message: 'X-Mistral-Key must contain only printable ASCII characters.', type: 'invalid_request_error', code: 400 },
        });
        expect(keyFragments(reply.body, secret)).to.deep.equal([]);
        expect(upstream.requests).to.have.length(0);
      });
    }
  }
});
