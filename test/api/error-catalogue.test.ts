import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { errorsDocPath, errorsDocSource } from '../../scripts/errors-doc.ts';
import { errorCatalogue, errorMessage, freewayError, HttpError, invalidField, type ErrorSpec } from '../../server/core/errors.ts';
import { wrongKind } from '../../catalog/catalog.ts';
import { didYouMean } from '../../catalog/suggest.ts';
import { startFreeway, testCatalog, type RunningFreeway } from '../support/freeway.ts';

const entries = Object.entries(errorCatalogue as Record<string, ErrorSpec>);

describe('the error catalogue', () => {
  it('docs/errors.md lists every entry as the catalogue has it (run `node scripts/errors-doc.ts` after changing it)', () => {
    const page = readFileSync(errorsDocPath, 'utf8');
    expect(page).to.equal(errorsDocSource(page));
    for (const [code] of entries) expect(page).to.include(`| \`${code}\` |`);
  });

  it('gives every entry a stable FREEWAY_ code, an error status, a type and what to do', () => {
    for (const [code, spec] of entries) {
      expect(code, code).to.match(/^FREEWAY_[A-Z0-9_]+$/);
      expect(spec.status, code).to.be.within(400, 599);
      expect(spec.type, code).to.be.a('string').and.not.equal('');
      expect(spec.remedy.trim(), code).to.not.equal('');
    }
  });

  it('builds the thrown error from a code and its parameters', () => {
    const error = freewayError('FREEWAY_UNKNOWN_MODEL', { model: 'groq/nope', suggestion: '' });
    expect(error).to.be.instanceOf(HttpError);
    expect(error).to.include({ status: 404, type: 'invalid_request_error', code: 'FREEWAY_UNKNOWN_MODEL', message: 'Unknown model: groq/nope. GET /v1/models lists the models.' });
    expect(freewayError('FREEWAY_INTERNAL')).to.include({ status: 500, type: 'server_error', message: 'Internal server error.' });
    expect(errorMessage('FREEWAY_RATE_LIMITED', { seconds: 12 })).to.equal('Rate limit exceeded. Retry after 12 seconds.');
  });

  it('carries headers and a log reason when a site gives them', () => {
    const error = freewayError('FREEWAY_ALL_PROVIDERS_FAILED', { reasons: 'groq: 429' }, { headers: { 'Retry-After': '3' }, logReason: 'groq: 429 rate_limit' });
    expect(error.headers).to.deep.equal({ 'Retry-After': '3' });
    expect(error.logReason).to.equal('groq: 429 rate_limit');
    expect(error.status).to.equal(502);
    expect(error.type).to.equal('freeway_all_providers_failed');
  });

  it('words the routing sites\' messages as they read before the catalogue', async () => {
    const catalog = await testCatalog();
    expect(errorMessage('FREEWAY_UNKNOWN_MODEL', { model: 'groq/nope', suggestion: didYouMean(catalog, 'groq/nope') })).to.equal('Unknown model: groq/nope. GET /v1/models lists the models.');
    expect(errorMessage('FREEWAY_UNKNOWN_MODEL', { model: 'FREE:AUTO', suggestion: didYouMean(catalog, 'FREE:AUTO') })).to.equal(
      'Unknown model: FREE:AUTO. Did you mean `free:auto`? GET /v1/models lists the models.',
    );
    expect(errorMessage('FREEWAY_WRONG_MODEL_KIND', wrongKind('free:embed', 'embedding', 'chat'))).to.equal(
      'free:embed is an embedding model, not a chat model: use it with POST /v1/embeddings.',
    );
  });

  it('words a field error as Validation failed: <field>: <detail>', () => {
    const error = invalidField('messages.0.role', 'is required');
    expect(error).to.include({ status: 400, code: 'FREEWAY_VALIDATION_FAILED', message: 'Validation failed: messages.0.role: is required' });
  });
});

describe('one phrasing of each mistake on the three chat APIs', function () {
  let freeway: RunningFreeway;
  before(async () => {
    freeway = await startFreeway();
  });
  after(() => freeway.close());

  const routes = {
    chat: { path: '/v1/chat/completions', valid: { model: 'free:auto', messages: [{ role: 'user', content: 'hi' }] } },
    responses: { path: '/v1/responses', valid: { model: 'free:auto', input: 'hi' } },
    messages: { path: '/v1/messages', valid: { model: 'free:auto', max_tokens: 10, messages: [{ role: 'user', content: 'hi' }] } },
  } as const;

  async function messageOf(path: string, body: unknown): Promise<{ status: number; message: string }> {
    const res = await fetch(`${freeway.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    const reply = (await res.json()) as { error: { message: string } };
    return { status: res.status, message: reply.error.message };
  }

  const mistakes: Array<[string, (valid: Record<string, unknown>) => unknown, string]> = [
    ['a body that is a list', () => [], 'Validation failed: body: must be object'],
    ['no model', ({ model: _model, ...rest }) => rest, 'Validation failed: model: is required'],
    ['an empty model', (valid) => ({ ...valid, model: '' }), 'Validation failed: model: must NOT have fewer than 1 characters'],
    ['a model id past 256 characters', (valid) => ({ ...valid, model: 'x'.repeat(257) }), 'Validation failed: model: must NOT have more than 256 characters'],
    ['a negative temperature', (valid) => ({ ...valid, temperature: -1 }), 'Validation failed: temperature: must be >= 0'],
    ['top_p as a string', (valid) => ({ ...valid, top_p: 'high' }), 'Validation failed: top_p: must be number or null'],
    ['top_p above 1', (valid) => ({ ...valid, top_p: 2 }), 'Validation failed: top_p: must be <= 1'],
  ];

  it('counts a model id in characters, not UTF-16 units: 200 emoji pass the length check (and are an unknown model)', async () => {
    for (const [api, route] of Object.entries(routes)) {
      const reply = await messageOf(route.path, { ...route.valid, model: '\u{1F600}'.repeat(200) });
      expect(reply.status, api).to.equal(404);
      expect(reply.message, api).to.match(/^Unknown model: /);
    }
  });

  it('reads a number past 1.8e308 as out of bounds on every API: must be <= 2147483647', async () => {
    for (const [path, field, body] of [
      ['/v1/chat/completions', 'max_tokens', '{"model":"free:auto","max_tokens":1e309,"messages":[{"role":"user","content":"hi"}]}'],
      ['/v1/responses', 'max_output_tokens', '{"model":"free:auto","max_output_tokens":1e309,"input":"hi"}'],
      ['/v1/messages', 'max_tokens', '{"model":"free:auto","max_tokens":1e309,"messages":[{"role":"user","content":"hi"}]}'],
    ] as const) {
      const res = await fetch(`${freeway.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
      const reply = (await res.json()) as { error: { message: string } };
      expect({ status: res.status, message: reply.error.message }, path).to.deep.equal({ status: 400, message: `Validation failed: ${field}: must be <= 2147483647` });
    }
  });

  for (const [what, change, message] of mistakes) {
    it(`${what}: ${message}`, async () => {
      for (const [api, route] of Object.entries(routes)) {
        const reply = await messageOf(route.path, change(route.valid as Record<string, unknown>));
        expect(reply, api).to.deep.equal({ status: 400, message });
      }
    });
  }
});
