/**
 * Gemini's API on Freeway, HTTP in and HTTP out: the routes (under /v1beta and /v1), the
 * path's model and method, the streams' framing (server-sent events with alt=sse, one JSON
 * array without), Google's error envelope before and after the first byte, x-goog-api-key
 * and ?key=, GEMINI_MODEL_MAP, the model list, countTokens, embeddings, and failover and key
 * pools through these routes. The providers are fake upstreams on 127.0.0.1.
 */
import { expect } from 'chai';
import { loadConfig } from '../../server/config/index.ts';
import { startFreeway, providerPlugins, type RunningFreeway } from '../support/freeway.ts';
import { expectGoogleError, geminiChunk, geminiEmbeddings, geminiEvents, geminiUpstream, isGeminiPath, postJson, textOf, userText } from '../support/gemini.ts';
import { headerFor, keyHeaders, testKeys } from '../support/keys.ts';
import { freewayOverOneUpstream } from '../support/suite.ts';
import { openAIError, openAISSE, openAIText, startUpstream, usage, type SeenRequest } from '../support/upstream.ts';

const hi = { contents: [userText('Say hello')] };
const groq = keyHeaders('groq');
const GROQ_FIRST = 'groq/openai/gpt-oss-120b';

let fresh = 0;
/** A key of the provider's format that no other test used, so that one test's failures do not skip it in the next. */
const freshKey = (provider: string): string => {
  const sample = testKeys[provider] as string;
  const tail = String(++fresh).padStart(4, '0');
  return sample.slice(0, -tail.length) + tail;
};

/** Answers Gemini's paths as Google, the others as an OpenAI-compatible provider. */
const answer = (req: SeenRequest, res: Parameters<typeof openAIText>[0]): void => {
  if (/:(batchEmbedContents|embedContent)$/.test(req.path)) geminiEmbeddings(res, req);
  else if (isGeminiPath(req)) geminiUpstream(res, [geminiChunk([{ text: 'Hello from ' }]), geminiChunk([{ text: 'Gemini' }], true)]);
  else openAIText(res, 'Hello there friend', req);
};

describe('Gemini API: routes, streams, errors and keys', function () {
  const suite = freewayOverOneUpstream(['groq', 'cerebras', 'google', 'cloudflare'], answer);
  let freeway: RunningFreeway;
  before(function () {
    freeway = suite.freeway;
  });

  describe('generateContent', function () {
    it('answers a GenerateContentResponse: one candidate, STOP, the usage reported, the model that answered, the X-Freeway headers', async function () {
      const res = await postJson(freeway, '/v1beta/models/free:auto:generateContent', hi, { ...groq, 'x-goog-api-key': 'freeway' });
      expect(res.status).to.equal(200);
      expect(res.headers.get('content-type')).to.match(/^application\/json/);
      expect(res.headers.get('x-freeway-provider')).to.equal('groq');
      expect(res.headers.get('x-freeway-model')).to.equal(GROQ_FIRST);
      expect(res.headers.get('x-freeway-attempts')).to.match(/^groq\/openai\/gpt-oss-120b 200 \d+ms$/);
      const body = (await res.json()) as Record<string, unknown>;
      expect(body).to.have.keys('candidates', 'usageMetadata', 'modelVersion', 'responseId');
      expect(body.candidates).to.deep.equal([{ content: { role: 'model', parts: [{ text: 'Hello there friend' }] }, finishReason: 'STOP', index: 0 }]);
      expect(body.usageMetadata).to.deep.equal({ promptTokenCount: usage.prompt_tokens, candidatesTokenCount: usage.completion_tokens, totalTokenCount: usage.total_tokens });
      expect(body.modelVersion).to.equal(GROQ_FIRST);
      expect(body.responseId).to.match(/^[0-9a-f]{32}$/);
      const sent = suite.upstream.requests[0] as SeenRequest;
      expect(sent.body?.messages).to.deep.equal([{ role: 'user', content: 'Say hello' }]);
      // The placeholder never goes anywhere.
      expect(JSON.stringify(sent.headers)).to.not.include('freeway');
    });

    it('takes the model raw with slashes and colons, or percent-encoded (%2F, %3A), under /v1beta and /v1', async function () {
      for (const path of [
        '/v1beta/models/groq/openai/gpt-oss-120b:generateContent',
        '/v1beta/models/groq%2Fopenai%2Fgpt-oss-120b%3AgenerateContent',
        '/v1/models/groq/openai/gpt-oss-120b:generateContent',
        '/v1/models/groq%2Fopenai%2Fgpt-oss-120b%3AgenerateContent',
      ]) {
        const res = await postJson(freeway, path, hi, groq);
        expect(res.status, path).to.equal(200);
        expect(res.headers.get('x-freeway-model'), path).to.equal(GROQ_FIRST);
      }
    });

    it("maps Gemini CLI's model names with GEMINI_MODEL_MAP's defaults: pro to free:reasoning, flash-lite to free:fast, other flash to free:auto", async function () {
      const cases: Array<[string, string]> = [
        ['gemini-3.1-pro-preview', 'free:reasoning'],
        ['gemini-3.1-pro-preview-customtools', 'free:reasoning'],
        ['gemini-2.5-pro', 'free:reasoning'],
        ['gemini-3.5-flash-lite', 'free:fast'],
        ['gemini-3.8-flash', 'free:auto'],
        ['gemini-3-flash-preview', 'free:auto'],
      ];
      for (const [name, alias] of cases) {
        // Without a key the 401 names the model sent and the alias it was mapped to.
        const res = await postJson(freeway, `/v1beta/models/${name}:generateContent`, hi);
        await expectGoogleError(res, 401, 'UNAUTHENTICATED', new RegExp(`^No provider key for ${name.replace(/\./g, '\\.')} \\(mapped to ${alias}\\)\\. Send one of: `));
      }
      await expectGoogleError(await postJson(freeway, '/v1beta/models/gemma-9:generateContent', hi, groq), 404, 'NOT_FOUND', /^Unknown model: gemma-9\./);
    });
  });

  describe('streamGenerateContent', function () {
    it('with alt=sse: one `data:` line of a whole GenerateContentResponse per event, the finish and usage on the last, nothing else', async function () {
      const res = await postJson(freeway, '/v1beta/models/free:auto:streamGenerateContent?alt=sse', hi, groq);
      expect(res.status).to.equal(200);
      expect(res.headers.get('content-type')).to.equal('text/event-stream');
      expect(res.headers.get('x-freeway-model')).to.equal(GROQ_FIRST);
      const events = geminiEvents(await res.text());
      expect(events.length).to.be.greaterThan(1);
      expect(textOf(events)).to.equal('Hello there friend');
      for (const event of events.slice(0, -1)) {
        expect(event.candidates[0]).to.not.have.property('finishReason');
        expect(event).to.not.have.property('usageMetadata');
      }
      const last = events.at(-1);
      expect(last.candidates[0].finishReason).to.equal('STOP');
      expect(last.candidates[0].content.parts).to.deep.equal([{ text: 'friend' }]);
      expect(last.usageMetadata).to.deep.equal({ promptTokenCount: 7, candidatesTokenCount: 3, totalTokenCount: 10 });
      for (const event of events) {
        expect(event.modelVersion).to.equal(GROQ_FIRST);
        expect(event.responseId).to.equal(events[0].responseId);
      }
    });

    it('escapes U+2028, U+2029 and U+0085 in the events, which line readers would split on', async function () {
      suite.upstream.handle((req, res) => openAIText(res, 'a\u2028b\u2029c\u0085d', req));
      const res = await postJson(freeway, '/v1beta/models/free:auto:streamGenerateContent?alt=sse', hi, groq);
      const text = await res.text();
      expect(text).to.include('\\u2028').and.include('\\u2029').and.include('\\u0085');
      expect(textOf(geminiEvents(text))).to.equal('a\u2028b\u2029c\u0085d');
    });

    it('without alt=sse: one JSON array of GenerateContentResponse objects, the finish on the last', async function () {
      const res = await postJson(freeway, '/v1/models/free:auto:streamGenerateContent', hi, groq);
      expect(res.status).to.equal(200);
      expect(res.headers.get('content-type')).to.equal('application/json');
      const array = JSON.parse(await res.text()) as any[];
      expect(array).to.be.an('array').with.length.greaterThan(1);
      expect(textOf(array)).to.equal('Hello there friend');
      expect(array.at(-1).candidates[0].finishReason).to.equal('STOP');
    });

    it('ends a stream that fails after its first byte with one last event, or array element, holding the envelope', async function () {
      // An upstream stream cut after its first delta.
      suite.upstream.handle((_req, res) => openAISSE(res, [{ choices: [{ index: 0, delta: { role: 'assistant', content: 'partial ' }, finish_reason: null }] }], false));
      const sse = await (await postJson(freeway, '/v1beta/models/free:auto:streamGenerateContent?alt=sse', hi, groq)).text();
      const events = geminiEvents(sse);
      expect(textOf(events)).to.equal('partial ');
      expect(events.at(-1)).to.deep.equal({
        error: { code: 502, message: 'The stream from groq failed after it started: 200 then bad stream: the upstream stream ended before it finished', status: 'UNAVAILABLE' },
      });
      const array = JSON.parse(await (await postJson(freeway, '/v1beta/models/free:auto:streamGenerateContent', hi, groq)).text()) as any[];
      expect(textOf(array)).to.equal('partial ');
      expect(array.at(-1).error).to.include({ code: 502, status: 'UNAVAILABLE' });
    });
  });

  describe("errors in Google's envelope", function () {
    it('400 INVALID_ARGUMENT names the field, in the house words', async function () {
      const cases: Array<[unknown, string]> = [
        [{}, 'Validation failed: contents: is required'],
        [{ contents: [] }, 'Validation failed: contents: must NOT have fewer than 1 items'],
        [{ contents: [{ role: 'system', parts: [{ text: 'x' }] }] }, 'Validation failed: contents.0.role: must be one of user, model'],
        [{ contents: [{ parts: [{ text: 'x', inlineData: { mimeType: 'image/png', data: '' } }] }] }, 'Validation failed: contents.0.parts.0: must have exactly one of text, inlineData, fileData, functionCall, functionResponse'],
        [{ contents: [{ parts: [{ inlineData: { mimeType: 'audio/wav', data: 'AA==' } }] }] }, "Validation failed: contents.0.parts.0.inlineData.mimeType: must be image/*, application/pdf, text/* or application/json; no model of Freeway's reads audio/wav"],
        [{ contents: [{ parts: [{ fileData: { fileUri: 'gs://bucket/a.png' } }] }] }, 'Validation failed: contents.0.parts.0.fileData.fileUri: must be an http(s) URL: Freeway keeps no files, so send the content inline (inlineData) or by URL'],
        [{ contents: [{ role: 'user', parts: [{ functionCall: { name: 'f' } }] }] }, 'Validation failed: contents.0.parts.0.functionCall: is only taken in a turn of role model'],
        [{ ...hi, generationConfig: { candidateCount: 2 } }, 'Validation failed: generationConfig.candidateCount: must be 1: Freeway answers with one candidate'],
        [{ ...hi, generationConfig: { temperature: 3 } }, 'Validation failed: generationConfig.temperature: must be <= 2'],
        [{ ...hi, generationConfig: { responseMimeType: 'text/x.enum' } }, 'Validation failed: generationConfig.responseMimeType: must be one of text/plain, application/json'],
        [{ ...hi, toolConfig: { functionCallingConfig: { mode: 'ANY', allowedFunctionNames: ['nope'] } } }, 'Validation failed: toolConfig.functionCallingConfig.allowedFunctionNames.0: names no function declaration of the request: nope'],
        [{ ...hi, tools: [{ functionDeclarations: [{ name: '9lives' }] }] }, 'Validation failed: tools.0.functionDeclarations.0.name: must be 1 to 128 letters, digits, _, ., : or -, starting with a letter or _'],
      ];
      for (const [body, message] of cases) await expectGoogleError(await postJson(freeway, '/v1beta/models/free:auto:generateContent', body, groq), 400, 'INVALID_ARGUMENT', message);
      const notJson = await fetch(`${freeway.url}/v1beta/models/free:auto:generateContent`, { method: 'POST', headers: { 'content-type': 'application/json', ...groq }, body: '{"contents":' });
      await expectGoogleError(notJson, 400, 'INVALID_ARGUMENT', /^Validation failed: body: /);
    });

    it('401 UNAUTHENTICATED without a key, 404 NOT_FOUND for an unknown model or method, 405 for another HTTP method', async function () {
      await expectGoogleError(await postJson(freeway, '/v1beta/models/free:auto:generateContent', hi), 401, 'UNAUTHENTICATED', /^No provider key for free:auto\. Send one of: .*X-Groq-Key/);
      await expectGoogleError(await postJson(freeway, '/v1beta/models/free:nope:generateContent', hi, groq), 404, 'NOT_FOUND', /^Unknown model: free:nope\./);
      await expectGoogleError(
        await postJson(freeway, '/v1beta/models/free:auto:predict', hi, groq),
        404,
        'NOT_FOUND',
        'Unknown route: POST /v1beta/models/free:auto:predict. Freeway serves POST /v1beta/models/{model}:generateContent, :streamGenerateContent (with alt=sse, or a JSON array without), :countTokens, :embedContent and :batchEmbedContents, and GET /v1beta/models.',
      );
      await expectGoogleError(await postJson(freeway, '/v1beta/models/free-auto', hi, groq), 404, 'NOT_FOUND', /^Unknown route: POST \/v1beta\/models\/free-auto\./);
      const put = await fetch(`${freeway.url}/v1beta/models`, { method: 'PUT' });
      expect(put.headers.get('allow')).to.equal('GET, HEAD');
      await expectGoogleError(put, 405, 'INVALID_ARGUMENT', 'Method PUT is not allowed on /v1beta/models. Allowed: GET, HEAD.');
      await expectGoogleError(await fetch(`${freeway.url}/v1beta/files`), 404, 'NOT_FOUND', "Unknown route: GET /v1beta/files. Freeway serves Gemini's API at POST /v1beta/models/{model}:<method> and GET /v1beta/models; docs/gemini.md describes it.");
    });

    it('502 UNAVAILABLE when every provider failed', async function () {
      suite.upstream.handle((_req, res) => openAIError(res, 500, 'Internal error'));
      const res = await postJson(freeway, '/v1beta/models/groq/openai/gpt-oss-120b:generateContent', hi, { [headerFor('groq')]: freshKey('groq') });
      await expectGoogleError(res, 502, 'UNAVAILABLE', /^Provider failed: groq: 500 Internal error$/);
    });

    it('429 RESOURCE_EXHAUSTED, with RetryInfo from Retry-After, when every key only rests', async function () {
      suite.upstream.handle((_req, res) => openAIError(res, 429, 'Rate limit reached', { 'retry-after': '7' }));
      const res = await postJson(freeway, '/v1beta/models/groq/openai/gpt-oss-120b:generateContent', hi, { [headerFor('groq')]: freshKey('groq') });
      expect(res.headers.get('retry-after')).to.match(/^\d+$/);
      const seconds = Number(res.headers.get('retry-after'));
      await expectGoogleError(res, 429, 'RESOURCE_EXHAUSTED', /groq: usable again in 7s \(429 Rate limit reached\)$/, [{ '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: `${seconds}s` }]);
    });

    it("the routes OpenAI's and Anthropic's clients use keep their own shapes", async function () {
      const models = (await (await fetch(`${freeway.url}/v1/models`)).json()) as { object: string };
      expect(models.object).to.equal('list');
      const one = (await (await fetch(`${freeway.url}/v1/models/${GROQ_FIRST}`)).json()) as { id: string; object: string };
      expect(one).to.include({ id: GROQ_FIRST, object: 'model' });
      const post = await postJson(freeway, '/v1/models/free:auto', hi);
      expect(post.status).to.equal(405);
      expect(post.headers.get('allow')).to.equal('GET, HEAD');
      expect(await post.json()).to.deep.equal({ error: { message: 'Method POST is not allowed on /v1/models/free:auto. Allowed: GET, HEAD.', type: 'invalid_request_error', code: 405 } });
      const misplaced = await postJson(freeway, '/v1/v1beta/models/free:auto:generateContent', hi);
      expect(((await misplaced.json()) as { error: { message: string } }).error.message).to.include('set GOOGLE_GEMINI_BASE_URL (or the SDK\'s httpOptions.baseUrl) to http://<host>:<port>, without /v1');
    });
  });

  describe('x-goog-api-key and ?key=', function () {
    const googleKey = testKeys.google as string;
    const sentKey = (): unknown => suite.upstream.requests.find(isGeminiPath)?.headers['x-goog-api-key'];

    it('a value in the Google key format is the Google key, as header or ?key=, and never reaches a log line', async function () {
      const res = await postJson(freeway, '/v1beta/models/free:auto:generateContent', hi, { 'x-goog-api-key': googleKey });
      expect(res.status).to.equal(200);
      expect(res.headers.get('x-freeway-provider')).to.equal('google');
      expect(textOf([await res.json()])).to.equal('Hello from Gemini');
      expect(sentKey()).to.equal(googleKey);
      suite.upstream.requests.length = 0;
      const query = await postJson(freeway, `/v1beta/models/free:auto:streamGenerateContent?alt=sse&key=${googleKey}`, hi);
      expect(textOf(geminiEvents(await query.text()))).to.equal('Hello from Gemini');
      expect(sentKey()).to.equal(googleKey);
      const line = await freeway.logged(/^POST \/v1beta\/models\/\*name\?alt=sse&key=/);
      expect(JSON.parse(line).msg).to.match(/^POST \/v1beta\/models\/\*name\?alt=sse&key=\[REDACTED\] 200 \d+ms$/);
      expect(freeway.logs.join('\n')).to.not.include(googleKey);
    });

    it('a placeholder, an empty value or several values are ignored; X-Google-Key wins; other routes never read it', async function () {
      const hint =
        " Freeway reads x-goog-api-key (Gemini's GEMINI_API_KEY) only as a Google key, when it holds one (AIza...): send every other provider's key in its own header, X-<Provider>-Key (Gemini CLI: GEMINI_CLI_CUSTOM_HEADERS).";
      for (const value of ['freeway', '', `${googleKey}, ${googleKey}x`, 'AIza', testKeys.groq as string]) {
        const message = await expectGoogleError(await postJson(freeway, '/v1beta/models/free:auto:generateContent', hi, { 'x-goog-api-key': value }), 401, 'UNAUTHENTICATED', /^No provider key for free:auto/);
        // The hint for a key in the wrong header, never the value.
        if (value === '') expect(message).to.not.include('x-goog-api-key');
        else expect(message.endsWith(hint), message).to.equal(true);
        if (value.length > 4) expect(message).to.not.include(value);
      }
      await expectGoogleError(await postJson(freeway, '/v1beta/models/free:auto:generateContent?key=freeway', hi), 401, 'UNAUTHENTICATED', /^No provider key for free:auto/);
      const other = `${googleKey.slice(0, -1)}Q`;
      const res = await postJson(freeway, '/v1beta/models/free:auto:generateContent', hi, { 'x-goog-api-key': other, [headerFor('google')]: googleKey });
      expect(res.status).to.equal(200);
      expect(sentKey()).to.equal(googleKey);
      const chat = await postJson(freeway, '/v1/chat/completions', { model: 'free:auto', messages: [{ role: 'user', content: 'Hi' }] }, { 'x-goog-api-key': googleKey });
      expect(chat.status).to.equal(401);
    });
  });

  describe('countTokens', function () {
    it('estimates contents, or a generateContentRequest with its system text and tools, without any upstream call or key', async function () {
      const text = 'How many tokens is this?'; // 24 characters
      const one = await postJson(freeway, '/v1beta/models/gemini-3.1-pro-preview:countTokens', { contents: [userText(text), { role: 'user', parts: [{ inlineData: { mimeType: 'image/png', data: 'iVBORw0KGgo=' } }] }] });
      expect(await one.json()).to.deep.equal({ totalTokens: 6 + 1600 });
      const declaration = { name: 'get_weather', description: 'Weather', parametersJsonSchema: { type: 'object' } };
      const full = await postJson(freeway, '/v1/models/free:auto:countTokens', {
        generateContentRequest: { contents: [userText(text)], systemInstruction: { parts: [{ text: 'Be brief' }] }, tools: [{ functionDeclarations: [declaration] }] },
      });
      const chars = text.length + 'Be brief'.length + 'get_weather'.length + 'Weather'.length + JSON.stringify({ type: 'object' }).length;
      expect(await full.json()).to.deep.equal({ totalTokens: Math.ceil(chars / 4) });
      expect(suite.upstream.requests).to.have.length(0);
    });

    it('400 for neither contents nor generateContentRequest, naming a nested field from the top; 404 for an unknown model', async function () {
      const path = '/v1beta/models/free:auto:countTokens';
      await expectGoogleError(await postJson(freeway, path, {}), 400, 'INVALID_ARGUMENT', 'Validation failed: contents: is required (or generateContentRequest)');
      await expectGoogleError(await postJson(freeway, path, { generateContentRequest: { contents: [{ parts: [] }] } }), 400, 'INVALID_ARGUMENT', 'Validation failed: generateContentRequest.contents.0.parts: must NOT have fewer than 1 items');
      await expectGoogleError(await postJson(freeway, '/v1beta/models/claude-3:countTokens', hi), 404, 'NOT_FOUND', /^Unknown model: claude-3\./);
    });
  });

  describe('embedContent and batchEmbedContents', function () {
    it("a Gemini embedding model's name is Google's own model: a Google key is needed, and the vectors are Google's", async function () {
      const google = keyHeaders('google');
      const one = await postJson(freeway, '/v1beta/models/gemini-embedding-001:embedContent', { content: { parts: [{ text: 'hello' }] }, outputDimensionality: 768 }, google);
      expect(one.status).to.equal(200);
      expect(one.headers.get('x-freeway-model')).to.equal('google/gemini-embedding-001');
      expect(await one.json()).to.deep.equal({ embedding: { values: [5, 104, 5] } });
      expect(suite.upstream.requests[0]?.path).to.match(/^\/models\/gemini-embedding-001:(batchE|e)mbedContent$/);
      const batch = await postJson(
        freeway,
        '/v1/models/gemini-embedding-001:batchEmbedContents',
        { requests: ['hello', 'world!'].map((text) => ({ model: 'models/gemini-embedding-001', content: { parts: [{ text }] }, taskType: 'RETRIEVAL_DOCUMENT' })) },
        google,
      );
      expect(await batch.json()).to.deep.equal({ embeddings: [{ values: [5, 104, 5] }, { values: [6, 119, 5] }] });
      await expectGoogleError(await postJson(freeway, '/v1beta/models/gemini-embedding-001:embedContent', { content: { parts: [{ text: 'x' }] } }, groq), 401, 'UNAUTHENTICATED', /^google\/gemini-embedding-001 needs the X-Google-Key header\./);
    });

    it('400 for a batch whose requests name another model or differ in size, and a chat model named for an embedding', async function () {
      const google = keyHeaders('google');
      const path = '/v1beta/models/gemini-embedding-001:batchEmbedContents';
      const request = (extra: Record<string, unknown>) => ({ content: { parts: [{ text: 'x' }] }, ...extra });
      await expectGoogleError(await postJson(freeway, path, { requests: [request({ model: 'models/other' })] }, google), 400, 'INVALID_ARGUMENT', 'Validation failed: requests.0.model: must be the model of the path, models/gemini-embedding-001');
      await expectGoogleError(
        await postJson(freeway, path, { requests: [request({ outputDimensionality: 128 }), request({ outputDimensionality: 256 })] }, google),
        400,
        'INVALID_ARGUMENT',
        'Validation failed: requests.1.outputDimensionality: must be the same for every request of a batch',
      );
      await expectGoogleError(await postJson(freeway, path, { requests: [] }, google), 400, 'INVALID_ARGUMENT', 'Validation failed: requests: must NOT have fewer than 1 items');
      await expectGoogleError(await postJson(freeway, '/v1beta/models/free:auto:embedContent', request({}), groq), 400, 'INVALID_ARGUMENT', /^free:auto is a chat model, not an embedding model/);
    });
  });

  describe('failover and key pools through these routes', function () {
    it('fails over from a provider that answers 503 to the next, and from a rate-limited key of a pool to its next key', async function () {
      let calls = 0;
      suite.upstream.handle((req, res) => (calls++ === 0 ? openAIError(res, 503, 'Service unavailable') : openAIText(res, 'Hello there friend', req)));
      const res = await postJson(freeway, '/v1beta/models/free:tool-use:generateContent', hi, { [headerFor('groq')]: freshKey('groq'), [headerFor('cerebras')]: freshKey('cerebras') });
      expect(res.status).to.equal(200);
      const attempts = String(res.headers.get('x-freeway-attempts')).split(', ');
      expect(attempts).to.have.length(2);
      expect(attempts[0]).to.match(/ 503 \d+ms$/);
      expect(attempts[0]?.split('/')[0]).to.not.equal(res.headers.get('x-freeway-provider'));

      const [first, second] = ['gsk_' + 'a'.repeat(52), 'gsk_' + 'b'.repeat(52)];
      suite.upstream.handle((req, res) =>
        req.headers.authorization === `Bearer ${first}` ? openAIError(res, 429, 'Rate limit reached', { 'retry-after': '30' }) : openAIText(res, 'Hello there friend', req),
      );
      const pooled = await postJson(freeway, `/v1beta/models/${GROQ_FIRST}:streamGenerateContent?alt=sse`, hi, { [headerFor('groq')]: `${first},${second}` });
      expect(textOf(geminiEvents(await pooled.text()))).to.equal('Hello there friend');
      expect(pooled.headers.get('x-freeway-attempts')).to.match(new RegExp(`^${GROQ_FIRST} key 1 429 \\d+ms, ${GROQ_FIRST} key 2 200 \\d+ms$`));
    });
  });
});

describe('Gemini API: GEMINI_MODEL_MAP, the model list, CORS, the rate limit and metrics', function () {
  it("GEMINI_MODEL_MAP's targets are checked at start-up, and a name can be sent to Google's own model", async function () {
    const plugins = await providerPlugins();
    expect(() => loadConfig({ GEMINI_MODEL_MAP: 'gemini-*=free:nope' }, plugins)).to.throw(
      'GEMINI_MODEL_MAP maps gemini-* to free:nope, which is not a model or alias of the catalog (GET /v1/models lists them)',
    );
    expect(loadConfig({}, plugins).api.geminiModelMap.map(({ glob, target }) => `${glob}=${target}`)).to.deep.equal([
      'gemini-*-flash-lite*=free:fast',
      'gemini-*-pro*=free:reasoning',
      'gemini-*-flash*=free:auto',
    ]);
    const upstream = await startUpstream(answer);
    const freeway = await startFreeway({ env: { GOOGLE_BASE_URL: upstream.url, GEMINI_MODEL_MAP: 'gemini-3.8-flash=google/gemini-3.8-flash' } });
    try {
      const res = await postJson(freeway, '/v1beta/models/gemini-3.8-flash:generateContent', hi, keyHeaders('google', 'groq'));
      expect(res.headers.get('x-freeway-model')).to.equal('google/gemini-3.8-flash');
      expect(upstream.requests[0]?.path).to.equal('/models/gemini-3.8-flash:streamGenerateContent?alt=sse');
    } finally {
      await freeway.close();
      await upstream.close();
    }
  });

  describe('GET /v1beta/models', function () {
    let freeway: RunningFreeway;
    before(async function () {
      freeway = await startFreeway();
    });
    after(async function () {
      await freeway.close();
    });

    it("lists the aliases and models in Google's shape, paged by pageSize and pageToken, the last page without nextPageToken", async function () {
      const names: string[] = [];
      let token: string | undefined;
      let pages = 0;
      do {
        const page = (await (await fetch(`${freeway.url}/v1beta/models?pageSize=40${token ? `&pageToken=${token}` : ''}`)).json()) as { models: any[]; nextPageToken?: string };
        for (const model of page.models) {
          expect(model.name).to.equal(`models/${model.baseModelId}`);
          expect(model.supportedGenerationMethods).to.be.an('array').that.is.not.empty;
          names.push(model.baseModelId);
        }
        token = page.nextPageToken;
        pages += 1;
      } while (token !== undefined);
      expect(pages).to.be.greaterThan(1);
      const catalog = freeway.catalog;
      expect(names).to.deep.equal([...catalog.aliases.map((a) => a.id), 'free:embed', ...catalog.models.map((m) => m.id), ...catalog.embeddingModels.map((m) => m.id)]);
      const auto = (await (await fetch(`${freeway.url}/v1beta/models/free:auto`)).json()) as Record<string, unknown>;
      expect(auto).to.include({ name: 'models/free:auto', displayName: 'free:auto (Freeway alias)' });
      expect(auto.inputTokenLimit).to.equal(Math.min(...(catalog.aliases[0]?.models ?? []).map((m) => m.spec.contextWindow)));
      const flash = (await (await fetch(`${freeway.url}/v1beta/models/google/gemini-3.8-flash`)).json()) as Record<string, unknown>;
      expect(flash).to.deep.equal({
        name: 'models/google/gemini-3.8-flash',
        baseModelId: 'google/gemini-3.8-flash',
        displayName: 'Google gemini-3.8-flash',
        inputTokenLimit: 1048576,
        outputTokenLimit: 65536,
        supportedGenerationMethods: ['generateContent', 'streamGenerateContent', 'countTokens'],
        thinking: true,
      });
      const embedding = (await (await fetch(`${freeway.url}/v1beta/models/google/gemini-embedding-001`)).json()) as Record<string, unknown>;
      expect(embedding).to.include({ inputTokenLimit: 2048 });
      expect(embedding.supportedGenerationMethods).to.deep.equal(['embedContent', 'batchEmbedContents']);
      const mapped = (await (await fetch(`${freeway.url}/v1beta/models/gemini-3.8-flash`)).json()) as Record<string, unknown>;
      expect(mapped).to.include({ name: 'models/gemini-3.8-flash', baseModelId: 'free:auto', displayName: 'gemini-3.8-flash (served by free:auto)' });
      // A name longer than any route takes is no model, whatever GEMINI_MODEL_MAP's patterns would make of it.
      const long = `gemini-3.8-flash${'-x'.repeat(200)}`;
      await expectGoogleError(await fetch(`${freeway.url}/v1beta/models/${long}`), 404, 'NOT_FOUND', /^Unknown model: gemini-3\.8-flash-x-x/);
    });

    it('with key headers, what those keys can use; 404 and 400 in the envelope', async function () {
      const page = (await (await fetch(`${freeway.url}/v1beta/models?pageSize=1000`, { headers: { 'x-goog-api-key': testKeys.google as string } })).json()) as { models: any[] };
      const providers = new Set(page.models.filter((model) => !model.baseModelId.startsWith('free:')).map((model) => model.baseModelId.split('/')[0]));
      expect([...providers]).to.deep.equal(['google']);
      expect(page.models.find((model) => model.baseModelId === 'google/gemini-3.8-flash')).to.include({ tier: 'free with limits', available: true });
      await expectGoogleError(await fetch(`${freeway.url}/v1beta/models/groq/nope`), 404, 'NOT_FOUND', /^Unknown model: groq\/nope\./);
      await expectGoogleError(await fetch(`${freeway.url}/v1beta/models?pageSize=5000`), 400, 'INVALID_ARGUMENT', 'Validation failed: pageSize: must be an integer from 0 to 1000');
      await expectGoogleError(await fetch(`${freeway.url}/v1beta/models?pageToken=x`), 400, 'INVALID_ARGUMENT', 'Validation failed: pageToken: must be the nextPageToken of an earlier page');
    });
  });

  it("403 PERMISSION_DENIED and 413 INVALID_ARGUMENT in the envelope too, HOSTED_TOOLS=reject refuses Google's own tools, a key an upstream echoes is redacted", async function () {
    const upstream = await startUpstream((req, res) => openAIError(res, 400, `Invalid request for key ${String(req.headers.authorization).slice(7)}`));
    const freeway = await startFreeway({ env: { BODY_LIMIT: '2kb', ANONYMOUS: 'off', HOSTED_TOOLS: 'reject', GROQ_BASE_URL: upstream.url } });
    try {
      await expectGoogleError(
        await postJson(freeway, '/v1beta/models/free:auto:generateContent', hi, { [headerFor('ovhcloud')]: 'anonymous' }),
        403,
        'PERMISSION_DENIED',
        'X-Ovhcloud-Key: calls without a key are turned off on this Freeway (ANONYMOUS=off). Send a key in X-Ovhcloud-Key.',
      );
      await expectGoogleError(await postJson(freeway, '/v1beta/models/free:auto:generateContent', { contents: [userText('x'.repeat(4000))] }, groq), 413, 'INVALID_ARGUMENT', /^Request body larger than /);
      await expectGoogleError(
        await postJson(freeway, '/v1beta/models/free:auto:generateContent', { ...hi, tools: [{ googleSearch: {} }] }, groq),
        400,
        'INVALID_ARGUMENT',
        'Validation failed: tools.0.googleSearch: is a tool Google runs itself, which Freeway does not run; only functionDeclarations are taken (HOSTED_TOOLS=reject)',
      );
      const message = await expectGoogleError(await postJson(freeway, `/v1beta/models/${GROQ_FIRST}:generateContent`, hi, groq), 400, 'INVALID_ARGUMENT', /^groq rejected the request: /);
      expect(message).to.include('[REDACTED]').and.not.include(testKeys.groq as string);
    } finally {
      await freeway.close();
      await upstream.close();
    }
  });

  it('CORS and the per-client rate limit cover /v1beta as /v1; metrics and logs name the route, never the model', async function () {
    const freeway = await startFreeway({ env: { RATE_LIMIT_MAX: '2', RATE_LIMIT_WINDOW_MS: '60000' } });
    try {
      const preflight = await fetch(`${freeway.url}/v1beta/models/free:auto:streamGenerateContent?alt=sse`, {
        method: 'OPTIONS',
        headers: { Origin: 'https://app.example', 'Access-Control-Request-Method': 'POST', 'Access-Control-Request-Headers': 'content-type, x-goog-api-key, x-groq-key' },
      });
      expect(preflight.status).to.equal(204);
      expect(preflight.headers.get('access-control-allow-origin')).to.equal('*');
      expect(preflight.headers.get('access-control-allow-headers')).to.include('x-goog-api-key');
      const path = '/v1beta/models/gemini-secret-name:generateContent';
      expect((await postJson(freeway, path, hi)).status).to.equal(404);
      expect((await postJson(freeway, path, hi)).status).to.equal(404);
      const limited = await postJson(freeway, path, hi);
      const seconds = Number(limited.headers.get('retry-after'));
      await expectGoogleError(limited, 429, 'RESOURCE_EXHAUSTED', `Rate limit exceeded. Retry after ${seconds} seconds.`, [{ '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: `${seconds}s` }]);
      const metrics = await (await fetch(`${freeway.url}/metrics`)).text();
      expect(metrics).to.include('freeway_http_requests_total{route="/v1beta/models/*name",status="404"} 2');
      expect(metrics).to.include('freeway_http_requests_total{route="/v1beta/models/*name",status="429"} 1');
      const lines = freeway.logs.filter((line) => line.includes('POST /v1beta/'));
      expect(lines).to.have.length(3);
      for (const line of lines) expect(JSON.parse(line).msg).to.match(/^POST \/v1beta\/models\/\*name (404|429) \d+ms$/);
    } finally {
      await freeway.close();
    }
  });
});
