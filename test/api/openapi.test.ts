/**
 * GET /openapi.json: an OpenAPI 3.1 document of Freeway's endpoints, valid by a
 * maintained validator, whose request schemas are the ones that check bodies:
 * what the official openai and @anthropic-ai/sdk clients send validates against
 * them. docs/apis.md's field tables are generated from the same schemas.
 */
import Anthropic from '@anthropic-ai/sdk';
import { Validator } from '@seriousme/openapi-schema-validator';
import { Ajv, type ValidateFunction } from 'ajv';
import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import OpenAI from 'openai';
import { apisDocPath } from '../../scripts/apis-doc.ts';
import { requestFieldsDocSource } from '../../scripts/request-fields-doc.ts';
import { documentedRoutes } from '../../server/api/openapi-routes.ts';
import { routeTable } from '../../server/http/route-table.ts';
import { startFreeway, type RunningFreeway } from '../support/freeway.ts';
import { startUpstream, type FakeUpstream, type SeenRequest } from '../support/upstream.ts';

/** Every route the OpenAPI document describes, from the route table. */
const servedRoutes = documentedRoutes(routeTable);

interface Document {
  openapi: string;
  paths: Record<string, Record<string, { requestBody?: { content: Record<string, { schema: { $ref?: string } }> } }>>;
  components: { schemas: Record<string, unknown> };
}

describe('GET /openapi.json', function () {
  let freeway: RunningFreeway;
  let document: Document;

  before(async function () {
    freeway = await startFreeway();
    const response = await fetch(`${freeway.url}/openapi.json`);
    expect(response.status).to.equal(200);
    expect(response.headers.get('content-type')).to.match(/^application\/json/);
    document = (await response.json()) as Document;
  });

  after(async function () {
    await freeway.close();
  });

  it('is a valid OpenAPI 3.1 document', async function () {
    const result = await new Validator().validate(document as unknown as Record<string, unknown>);
    expect(result.errors, JSON.stringify(result.errors)).to.equal(undefined);
    expect(result.valid).to.equal(true);
    expect(document.openapi).to.match(/^3\.1\./);
  });

  it('describes every endpoint Freeway answers, and each one it describes answers other than 404', async function () {
    for (const route of servedRoutes) {
      expect(document.paths[route.path]?.[route.method], `${route.method} ${route.path}`).to.be.an('object');
      const path = route.path.replace('{model}', 'gemini-2.5-flash').replace('{id}', 'free:auto').replace('{file}', 'console.js');
      const response = await fetch(`${freeway.url}${path}`, route.method === 'post' ? { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' } : {});
      await response.arrayBuffer();
      expect(response.status, `${route.method} ${path}`).to.not.equal(404);
    }
  });

  it('names the same body schema for a path as the route checks: an empty chat body is refused as the schema says', async function () {
    const reply = await fetch(`${freeway.url}/v1/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    expect(((await reply.json()) as { error: { message: string } }).error.message).to.equal('Validation failed: model: is required');
    const schema = document.components.schemas.ChatCompletionRequest as { required: string[] };
    expect(schema.required).to.deep.equal(['model', 'messages']);
  });

  it('docs/apis.md has the field tables of the current schemas (npm run docs)', function () {
    const page = readFileSync(apisDocPath, 'utf8');
    expect(page).to.equal(requestFieldsDocSource(page));
  });

  describe('what the official SDKs send validates against the request schema of its path', function () {
    let capture: FakeUpstream;
    const validators = new Map<string, ValidateFunction>();

    /** The document's schema of a path's JSON body, compiled by a plain ajv (formats and x- keywords are annotations to it). */
    function validatorFor(path: string): ValidateFunction {
      const ref = document.paths[path]?.post?.requestBody?.content['application/json']?.schema.$ref;
      if (ref === undefined) throw new Error(`the document has no JSON body for POST ${path}`);
      const name = ref.replace('#/components/schemas/', '');
      let validate = validators.get(name);
      if (!validate) {
        const ajv = new Ajv({ strict: false, discriminator: true, validateFormats: false, validateSchema: false });
        ajv.addSchema(document as unknown as object, 'openapi.json');
        validate = ajv.compile({ $ref: `openapi.json${ref}` });
        validators.set(name, validate);
      }
      return validate;
    }

    before(async function () {
      // Every call is answered with a 400: the bodies are what is looked at.
      capture = await startUpstream((_req, res) => {
        res.writeHead(400, { 'content-type': 'application/json' }).end('{"error": {"message": "captured", "type": "invalid_request_error"}}');
      });
    });

    after(async function () {
      await capture.close();
    });

    beforeEach(function () {
      capture.requests.length = 0;
    });

    async function sent(call: () => Promise<unknown>): Promise<SeenRequest> {
      await call().then(
        () => expect.fail('the capture answers with a 400'),
        () => undefined,
      );
      const request = capture.requests.at(-1);
      if (!request?.body) throw new Error('the SDK sent no JSON body');
      return request;
    }

    function expectValid(request: SeenRequest, path = request.path.split('?')[0] as string): void {
      const validate = validatorFor(path);
      expect(validate(request.body), `${path}: ${JSON.stringify(validate.errors)}\n${JSON.stringify(request.body)}`).to.equal(true);
    }

    const weather = { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] };

    it('openai: chat completions, plain, streamed, with tools and their results, images, a JSON schema answer and legacy functions', async function () {
      const openai = new OpenAI({ baseURL: `${capture.url}/v1`, apiKey: 'unused', maxRetries: 0 });
      const bodies = [
        () => openai.chat.completions.create({ model: 'free:auto', messages: [{ role: 'user', content: 'Hi' }] }),
        () => openai.chat.completions.create({ model: 'free:auto', stream: true, stream_options: { include_usage: true }, temperature: 0.2, top_p: 0.9, max_tokens: 64, stop: ['\n'], seed: 7, messages: [{ role: 'system', content: 'Be brief.' }, { role: 'user', content: 'Hi' }] }),
        () =>
          openai.chat.completions.create({
            model: 'free:tool-use',
            tools: [{ type: 'function', function: { name: 'get_weather', description: 'Weather', parameters: weather, strict: true } }],
            tool_choice: { type: 'function', function: { name: 'get_weather' } },
            parallel_tool_calls: false,
            messages: [
              { role: 'user', content: 'Weather in Paris?' },
              { role: 'assistant', content: null, tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } }] },
              { role: 'tool', tool_call_id: 'call_1', content: '18 degrees' },
            ],
          }),
        () =>
          openai.chat.completions.create({
            model: 'free:vision',
            messages: [{ role: 'user', content: [{ type: 'text', text: 'What is this?' }, { type: 'image_url', image_url: { url: 'https://example.com/cat.png', detail: 'low' } }] }],
          }),
        () =>
          openai.chat.completions.create({
            model: 'free:auto',
            response_format: { type: 'json_schema', json_schema: { name: 'answer', schema: weather, strict: true } },
            logprobs: true,
            top_logprobs: 2,
            user: 'user-1',
            messages: [{ role: 'developer', content: [{ type: 'text', text: 'JSON only.' }] }, { role: 'user', content: 'Hi' }],
          }),
        () =>
          openai.chat.completions.create({
            model: 'free:auto',
            functions: [{ name: 'get_weather', parameters: weather }],
            function_call: 'auto',
            messages: [
              { role: 'user', content: 'Weather?' },
              { role: 'assistant', content: null, function_call: { name: 'get_weather', arguments: '{"city":"Paris"}' } },
              { role: 'function', name: 'get_weather', content: '18 degrees' },
            ],
          }),
      ];
      for (const body of bodies) expectValid(await sent(body));
      // The document's schema refuses what Freeway refuses.
      expect(validatorFor('/v1/chat/completions')({ model: 'free:auto', messages: [{ role: 'user', content: [] }] })).to.equal(false);
    });

    it('openai: Responses, with items, function tools and their outputs, a JSON schema answer and reasoning; embeddings', async function () {
      const openai = new OpenAI({ baseURL: `${capture.url}/v1`, apiKey: 'unused', maxRetries: 0 });
      const bodies = [
        () => openai.responses.create({ model: 'free:auto', input: 'Hi', instructions: 'Be brief.', max_output_tokens: 64 }),
        () =>
          openai.responses.create({
            model: 'free:tool-use',
            stream: true,
            tools: [{ type: 'function', name: 'get_weather', description: 'Weather', parameters: weather, strict: true }],
            tool_choice: { type: 'function', name: 'get_weather' },
            reasoning: { effort: 'low' },
            metadata: { run: '1' },
            input: [
              { role: 'user', content: [{ type: 'input_text', text: 'Weather in Paris?' }, { type: 'input_image', image_url: 'https://example.com/cat.png', detail: 'auto' }] },
              { type: 'function_call', call_id: 'call_1', name: 'get_weather', arguments: '{"city":"Paris"}' },
              { type: 'function_call_output', call_id: 'call_1', output: '18 degrees' },
            ],
          }),
        () => openai.responses.create({ model: 'free:auto', input: 'Hi', text: { format: { type: 'json_schema', name: 'answer', schema: weather, strict: true } } }),
      ];
      for (const body of bodies) expectValid(await sent(body));
      expectValid(await sent(() => openai.embeddings.create({ model: 'free:embed', input: ['a', 'b'], encoding_format: 'float' })));
      expectValid(await sent(() => openai.embeddings.create({ model: 'free:embed', input: 'a' })));
    });

    it('@anthropic-ai/sdk: messages, streamed, with system blocks, tools and their results, images, documents and thinking; count_tokens', async function () {
      const anthropic = new Anthropic({ baseURL: capture.url, apiKey: 'unused', maxRetries: 0 });
      const tool = { name: 'get_weather', description: 'Weather', input_schema: { type: 'object' as const, properties: { city: { type: 'string' } }, required: ['city'] } };
      const conversation: Anthropic.MessageParam[] = [
        { role: 'user', content: [{ type: 'text', text: 'What is in these?' }, { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'iVBORw0KGgo=' } }, { type: 'image', source: { type: 'url', url: 'https://example.com/cat.png' } }, { type: 'document', source: { type: 'base64', media_type: 'application/pdf', data: 'JVBERi0x' } }] },
        { role: 'assistant', content: [{ type: 'thinking', thinking: 'Let me look.', signature: 'sig' }, { type: 'tool_use', id: 'toolu_1', name: 'get_weather', input: { city: 'Paris' } }] },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: [{ type: 'text', text: '18 degrees' }] }] },
      ];
      const bodies = [
        () => anthropic.messages.create({ model: 'claude-sonnet-4-6', max_tokens: 10, messages: [{ role: 'user', content: 'Hi' }] }),
        () =>
          anthropic.messages.create({
            model: 'claude-sonnet-4-6',
            max_tokens: 1024,
            stream: true,
            system: [{ type: 'text', text: 'Be brief.', cache_control: { type: 'ephemeral' } }],
            tools: [tool],
            tool_choice: { type: 'tool', name: 'get_weather', disable_parallel_tool_use: true },
            thinking: { type: 'enabled', budget_tokens: 512 },
            metadata: { user_id: 'user-1' },
            stop_sequences: ['END'],
            messages: conversation,
          }),
        () => anthropic.messages.create({ model: 'claude-haiku-4-5', max_tokens: 100, tool_choice: { type: 'auto' }, tools: [tool], messages: conversation }),
      ];
      for (const body of bodies) expectValid(await sent(body));
      expectValid(await sent(() => anthropic.messages.countTokens({ model: 'claude-haiku-4-5', system: 'Be brief.', tools: [tool], messages: conversation })), '/v1/messages/count_tokens');
    });
  });
});
