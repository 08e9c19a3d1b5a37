import { expect } from 'chai';
import { startFreeway, type RunningFreeway } from '../support/freeway.ts';
import { expectError } from '../support/errors.ts';
import { keyHeaders, testKeys } from '../support/keys.ts';
import { openAIText, startUpstream, type FakeUpstream } from '../support/upstream.ts';

/** Inputs at the edge of what JSON, HTTP and the key headers allow. */
describe('edge inputs', () => {
  let upstream: FakeUpstream;
  let freeway: RunningFreeway;

  before(async () => {
    upstream = await startUpstream((req, res) => openAIText(res, 'Hello', req));
    freeway = await startFreeway({ env: { GROQ_BASE_URL: upstream.url, CLOUDFLARE_BASE_URL: upstream.url } });
  });

  after(async () => {
    await freeway.close();
    await upstream.close();
  });

  beforeEach(() => {
    upstream.requests.length = 0;
  });

  function post(body: string, headers: Record<string, string> = {}): Promise<Response> {
    return fetch(`${freeway.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...keyHeaders('groq'), ...headers },
      body,
    });
  }

  const pinned = 'groq/llama-3.1-8b-instant';
  const withField = (field: string, raw: string): string =>
    `{"model":"${pinned}","messages":[{"role":"user","content":"hi"}],"${field}":${raw}}`;

  describe('integers past what JSON numbers hold', () => {
    // 1e309 parses as Infinity, which would be sent upstream as null.
    for (const [field, raw, detail] of [
      ['max_tokens', '1e309', 'must be <= 2147483647'],
      ['max_tokens', '2147483648', 'must be <= 2147483647'],
      ['max_completion_tokens', '1e309', 'must be <= 2147483647'],
      ['seed', '1e309', 'must be <= 2147483647'],
      ['seed', '-1e309', 'must be >= -2147483648'],
      ['n', '1e309', 'must be <= 2147483647'],
    ] as const) {
      it(`${field}: ${raw} is a 400`, async () => {
        await expectError(await post(withField(field, raw)), 400, 'invalid_request_error', `Validation failed: ${field}: ${detail}`);
        expect(upstream.requests).to.have.length(0);
      });
    }

    it('the largest int32 goes upstream as that number', async () => {
      const response = await post(withField('seed', '2147483647'));
      expect(response.status, await response.text()).to.equal(200);
      expect(upstream.requests[0]?.body?.seed).to.equal(2147483647);
    });

    it("a max_tokens that large is lowered to what the model's window leaves after the prompt", async () => {
      const response = await post(withField('max_tokens', '2147483647'));
      expect(response.status, await response.text()).to.equal(200);
      const sent = upstream.requests[0]?.body?.max_tokens as number;
      // llama-3.1-8b-instant's window is 131072 tokens; "hi" is estimated at a token or two.
      expect(sent).to.be.within(131_060, 131_071);
    });
  });

  describe('charsets and content encodings', () => {
    const body = '{}';
    for (const contentType of [
      'application/json; charset=utf-88',
      'application/json; charset=utf-8x',
      'application/json; charset=utf-8; charset=latin1',
      'application/json; charset=utf-8; charset=utf-8',
      'application/json; charset="latin1"',
    ]) {
      it(`${contentType} is a 415`, async () => {
        await expectError(await post(body, { 'content-type': contentType }), 415, 'invalid_request_error', 'Request body must be uncompressed UTF-8 JSON.');
      });
    }

    for (const contentType of ['application/json; charset=utf-8', 'application/json;charset="UTF-8"', 'application/json; CHARSET=utf8', 'text/plain; format=flowed']) {
      it(`${contentType} is read`, async () => {
        await expectError(await post(body, { 'content-type': contentType }), 400, 'invalid_request_error', 'Validation failed: model: is required');
      });
    }

    for (const encoding of ['IDENTITY', 'Identity', ' identity ']) {
      it(`Content-Encoding: "${encoding}" is read`, async () => {
        await expectError(await post(body, { 'content-encoding': encoding }), 400, 'invalid_request_error', 'Validation failed: model: is required');
      });
    }

    for (const encoding of ['gzip', 'GZIP', 'identity, gzip']) {
      it(`Content-Encoding: "${encoding}" is a 415`, async () => {
        await expectError(await post(body, { 'content-encoding': encoding }), 415, 'invalid_request_error', 'Request body must be uncompressed UTF-8 JSON.');
      });
    }
  });

  describe('long model ids', () => {
    it('a 1 MB model id is a 400 that does not echo it', async () => {
      const id = 'm'.repeat(1024 * 1024);
      const reply = await expectError(
        await post(JSON.stringify({ model: id, messages: [{ role: 'user', content: 'hi' }] })),
        400,
        'invalid_request_error',
        'Validation failed: model: must NOT have more than 256 characters',
      );
      expect(reply.text.length).to.be.lessThan(500);
    });

    it('a model id of 256 characters is looked up, and echoed whole', async () => {
      const id = `groq/${'x'.repeat(251)}`;
      await expectError(
        await post(JSON.stringify({ model: id, messages: [{ role: 'user', content: 'hi' }] })),
        404,
        'invalid_request_error',
        `Unknown model: ${id}. GET /v1/models lists the models.`,
      );
    });

    it('GET /v1/models/{id} cuts a long unknown id to 256 characters in its message', async () => {
      const id = 'y'.repeat(12_000);
      const reply = await expectError(await fetch(`${freeway.url}/v1/models/${id}`), 404, 'invalid_request_error');
      expect(reply.message).to.equal(`Unknown model: ${'y'.repeat(256)}…. GET /v1/models lists the models.`);
    });

    it('an unknown route cuts a long path to 256 characters in its message', async () => {
      const path = `/v2/${'z'.repeat(12_000)}`;
      const reply = await expectError(await fetch(`${freeway.url}${path}`), 404, 'invalid_request_error');
      expect(reply.message).to.equal(
        `Unknown route: GET ${path.slice(0, 256)}…. Freeway serves GET /v1/models (the models), GET /health (the providers' health) and the APIs under /v1; its README describes them.`,
      );
    });
  });

  describe('the same bounds on the Responses and Messages APIs', () => {
    const long = `groq/${'x'.repeat(300)}`;

    async function postTo(path: string, body: string): Promise<{ status: number; body: any }> {
      const response = await fetch(`${freeway.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...keyHeaders('groq') }, body });
      return { status: response.status, body: await response.json() };
    }

    it('/v1/responses: a model id over 256 characters, and max_output_tokens past int32, are 400s', async () => {
      await expectError(
        await fetch(`${freeway.url}/v1/responses`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ model: long, input: 'hi' }) }),
        400,
        'invalid_request_error',
        'Validation failed: model: must NOT have more than 256 characters',
      );
      await expectError(
        await fetch(`${freeway.url}/v1/responses`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: `{"model":"${pinned}","input":"hi","max_output_tokens":2147483648}` }),
        400,
        'invalid_request_error',
        'Validation failed: max_output_tokens: must be <= 2147483647',
      );
      expect(upstream.requests).to.have.length(0);
    });

    it('/v1/messages: the same, in the Messages API error format', async () => {
      for (const [body, message] of [
        [JSON.stringify({ model: long, max_tokens: 10, messages: [{ role: 'user', content: 'hi' }] }), 'Validation failed: model: must NOT have more than 256 characters'],
        [`{"model":"${pinned}","max_tokens":2147483648,"messages":[{"role":"user","content":"hi"}]}`, 'Validation failed: max_tokens: must be <= 2147483647'],
        [`{"model":"${pinned}","max_tokens":1e309,"messages":[{"role":"user","content":"hi"}]}`, 'Validation failed: max_tokens: must be <= 2147483647'],
      ] as const) {
        const reply = await postTo('/v1/messages', body);
        expect(reply.status).to.equal(400);
        expect(reply.body.type).to.equal('error');
        expect(reply.body.error).to.deep.equal({ type: 'invalid_request_error', message });
      }
      expect(upstream.requests).to.have.length(0);
    });
  });

  describe('Cloudflare account ids', () => {
    const cloudflareModel = 'cloudflare/@cf/meta/llama-3.1-8b-instruct-fp8';
    const message = 'X-Cloudflare-Key: the account id must be 32 hexadecimal characters.';
    for (const account of ['..', '../../../zones', '0123456789abcdef0123456789abcde', '0123456789abcdef0123456789abcdef0', '0123456789abcdef0123456789abcdeg', '0123456789abcdef/../456789abcdef']) {
      it(`"${account}:token" is a 400 and never reaches the upstream`, async () => {
        const reply = await expectError(
          await post(JSON.stringify({ model: cloudflareModel, messages: [{ role: 'user', content: 'hi' }] }), { 'X-Cloudflare-Key': `${account}:CFSecretToken_0123456789` }),
          400,
          'invalid_request_error',
          message,
        );
        expect(reply.text).to.not.include('CFSecretToken');
        expect(upstream.requests).to.have.length(0);
      });
    }

    it('an upper-case hexadecimal account id is fine and lands in the path as sent', async () => {
      const account = '0123456789ABCDEF0123456789ABCDEF';
      const response = await post(JSON.stringify({ model: cloudflareModel, messages: [{ role: 'user', content: 'hi' }] }), {
        'X-Cloudflare-Key': `${account}:${(testKeys.cloudflare as string).split(':')[1]}`,
      });
      expect(response.status, await response.text()).to.equal(200);
      expect(upstream.requests[0]?.path).to.equal(`/accounts/${account}/ai/v1/chat/completions`);
    });
  });
});
