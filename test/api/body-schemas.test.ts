/**
 * The one formatter of ajv's errors (server/api/validation.ts), over HTTP: each
 * shape of mistake a schema reports, worded as `Validation failed: <field>: <detail>`
 * and in each API's error shape, with nothing sent upstream.
 */
import { expect } from 'chai';
import { documentedRoutes } from '../../server/api/openapi-routes.ts';
import { routeTable } from '../../server/http/route-table.ts';
import { startFreeway, type RunningFreeway } from '../support/freeway.ts';
import { expectError } from '../support/errors.ts';
import { keyHeaders } from '../support/keys.ts';
import { openAIText, startUpstream, type FakeUpstream } from '../support/upstream.ts';

/** Every route the OpenAPI document describes, from the route table. */
const servedRoutes = documentedRoutes(routeTable);

const hi = [{ role: 'user', content: 'hi' }];

describe('bodies checked against their JSON Schemas: the mistake named', function () {
  let upstream: FakeUpstream;
  let freeway: RunningFreeway;

  before(async function () {
    upstream = await startUpstream((req, res) => openAIText(res, 'Hello', req));
    freeway = await startFreeway({ env: { GROQ_BASE_URL: upstream.url, GOOGLE_BASE_URL: upstream.url } });
  });

  after(async function () {
    await freeway.close();
    await upstream.close();
  });

  const post = (path: string, body: unknown, headers: Record<string, string> = {}): Promise<Response> =>
    fetch(`${freeway.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...keyHeaders('groq', 'google'), ...headers }, body: JSON.stringify(body) });

  const openAICases: ReadonlyArray<readonly [string, string, unknown, string]> = [
    ['a union tag that is not a string', '/v1/chat/completions', { model: 'free:auto', messages: [{ role: 3, content: 'hi' }] }, 'messages.0.role: must be string'],
    ['a value of no branch of a union (the branches named)', '/v1/chat/completions', { model: 'free:auto', messages: hi, function_call: 3 }, 'function_call: must be none or auto or object'],
    ['a value of one branch that fails inside it', '/v1/chat/completions', { model: 'free:auto', messages: hi, function_call: {} }, 'function_call.name: is required'],
    ['a pattern', '/v1/chat/completions', { model: 'free:auto', messages: hi, tools: [{ type: 'function', function: { name: 'get weather' } }] }, 'tools.0.function.name: must match pattern "^[A-Za-z0-9_-]{1,64}$"'],
    ['a constant', '/v1/chat/completions', { model: 'free:auto', messages: hi, tools: [{ type: 'custom', function: { name: 'f' } }] }, 'tools.0.type: must be function'],
    ['a required field inside a union branch', '/v1/chat/completions', { model: 'free:auto', messages: [{ role: 'assistant', tool_calls: [{ id: 'c', type: 'function', function: { name: 'f' } }] }] }, 'messages.0.tool_calls.0.function.arguments: is required'],
    ['a nested object past 64 levels', '/v1/chat/completions', { model: 'free:auto', messages: hi, response_format: { type: 'json_schema', json_schema: JSON.parse(`${'{"a":'.repeat(65)}1${'}'.repeat(65)}`) } }, 'response_format.json_schema: is nested more than 64 levels deep'],
    ['a property name too long', '/v1/responses', { model: 'free:auto', input: 'hi', metadata: { ['k'.repeat(65)]: 'v' } }, 'metadata: keys must be at most 64 characters'],
    ['more properties than allowed', '/v1/responses', { model: 'free:auto', input: 'hi', metadata: Object.fromEntries(Array.from({ length: 17 }, (_, i) => [`k${i}`, 'v'])) }, 'metadata: must NOT have more than 16 properties'],
    ['a refused part type, by its own words', '/v1/responses', { model: 'free:auto', input: [{ role: 'assistant', content: [{ type: 'input_image', image_url: 'https://example.com/a.png' }] }] }, 'input.0.content.0.type: images are only taken in user messages'],
    ['a part type of no branch: the types the role may send, refused ones left out', '/v1/responses', { model: 'free:auto', input: [{ role: 'user', content: [{ type: 'video' }] }] }, 'input.0.content.0.type: must be one of input_text, output_text, input_image, input_file'],
    ['an item type of no branch, named in the detail', '/v1/responses', { model: 'free:auto', input: [{ type: 'web_search_call' }] }, 'input.0.type: web_search_call items are not supported; send message, function_call and function_call_output items'],
    ['embeddings: a body that is not an object, in its own words', '/v1/embeddings', ['a'], 'body: must be a JSON object'],
    ['embeddings: an absent model, in its own words', '/v1/embeddings', { input: 'a', encoding_format: 'float' }, 'model: required, a string'],
    ['embeddings: input_type', '/v1/embeddings', { model: 'free:embed', input: 'a', input_type: 'doc' }, 'input_type: must be "query" or "passage"'],
  ];

  for (const [what, path, body, message] of openAICases) {
    it(`${path}: ${what}`, async function () {
      await expectError(await post(path, body), 400, 'invalid_request_error', `Validation failed: ${message}`);
      expect(upstream.requests).to.have.length(0);
    });
  }

  it("/v1/messages: a URL that is not http(s), in Anthropic's shape", async function () {
    const body = { model: 'claude-sonnet-4-6', max_tokens: 10, messages: [{ role: 'user', content: [{ type: 'image', source: { type: 'url', url: 'ftp://example.com/a.png' } }] }] };
    const reply = await post('/v1/messages', body, { 'anthropic-version': '2023-06-01' });
    expect(reply.status).to.equal(400);
    expect(await reply.json()).to.deep.include({ type: 'error', error: { type: 'invalid_request_error', message: 'Validation failed: messages.0.content.0.source.url: must be an http(s) URL' } });
  });

  it("Gemini: a part with two kinds of data, and a value named in the detail, in Google's shape", async function () {
    for (const [parts, message] of [
      [[{ text: 'a', functionCall: { name: 'f' } }], 'contents.0.parts.0: must have exactly one of text, inlineData, fileData, functionCall, functionResponse'],
      [[{ inlineData: { mimeType: 'video/mp4', data: 'AA==' } }], "contents.0.parts.0.inlineData.mimeType: must be image/*, application/pdf, text/* or application/json; no model of Freeway's reads video/mp4"],
    ] as const) {
      const reply = await post('/v1beta/models/gemini-2.5-flash:generateContent', { contents: [{ role: 'user', parts }] });
      expect(reply.status).to.equal(400);
      expect(await reply.json()).to.deep.equal({ error: { code: 400, message: `Validation failed: ${message}`, status: 'INVALID_ARGUMENT' } });
    }
    expect(upstream.requests).to.have.length(0);
  });

  it('every anyOf union of every body schema has its branches in place, not as $refs (the formatter groups their errors by path)', function () {
    const refBranches: string[] = [];
    const walk = (node: unknown, path: string): void => {
      if (Array.isArray(node)) return node.forEach((item, index) => walk(item, `${path}/${index}`));
      if (node === null || typeof node !== 'object') return;
      for (const [key, value] of Object.entries(node)) {
        if (key === 'anyOf' && Array.isArray(value)) value.forEach((branch, index) => (branch as { $ref?: unknown }).$ref !== undefined && refBranches.push(`${path}/anyOf/${index}`));
        walk(value, `${path}/${key}`);
      }
    };
    const schemas = servedRoutes.flatMap((route) => (route.request ? [route.request] : []));
    for (const { name, schema } of schemas) walk(schema, name);
    expect(schemas.length).to.be.greaterThan(5);
    expect(refBranches).to.deep.equal([]);
  });
});
