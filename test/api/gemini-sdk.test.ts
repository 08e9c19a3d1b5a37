/**
 * Google's `@google/genai` SDK (pinned in devDependencies) as a real client of Freeway,
 * pointed at it with `httpOptions: { baseUrl, headers }` and nothing else changed: Freeway
 * listens on 127.0.0.1, its providers are fake upstreams, and every assertion is on what
 * the SDK hands its caller (or on what the upstream was sent). The SDK 3.x calls Gemini's
 * `v1` by default, so these calls go to `/v1/models/{model}:{method}`; the model list is
 * asked with `apiVersion: 'v1beta'`, as docs/gemini.md says.
 */
import { ApiError, FunctionCallingConfigMode, GoogleGenAI, Type, type Content } from '@google/genai';
import { expect } from 'chai';
import type { RunningFreeway } from '../support/freeway.ts';
import { geminiEmbeddings, geminiUpstream, geminiChunk, isGeminiPath } from '../support/gemini.ts';
import { keyHeaders } from '../support/keys.ts';
import { freewayOverOneUpstream } from '../support/suite.ts';
import { openAIError, openAISSE, openAIText, openAIToolCall, type SeenRequest } from '../support/upstream.ts';

/** Answers a tool call while no tool result came back, then the text; Gemini's paths as Google. */
function provider(req: SeenRequest, res: Parameters<typeof openAIText>[0]): void {
  if (/:(batchEmbedContents|embedContent)$/.test(req.path)) return geminiEmbeddings(res, req);
  if (isGeminiPath(req)) return geminiUpstream(res, [geminiChunk([{ text: 'Hi from Gemini' }], true)]);
  const messages = (req.body?.messages ?? []) as Array<{ role: string; content?: unknown }>;
  const result = messages.find((message) => message.role === 'tool');
  if (req.body?.tools && !result) return openAIToolCall(res, 'get_weather', '{"city":"Paris"}');
  openAIText(res, result ? `It is ${String(result.content)} in Paris` : 'Hello there friend', req);
}

async function rejected(call: () => Promise<unknown>): Promise<ApiError> {
  try {
    await call();
  } catch (error) {
    expect(error).to.be.instanceOf(ApiError);
    return error as ApiError;
  }
  throw new Error('expected the call to fail');
}

describe('@google/genai against Freeway', function () {
  const suite = freewayOverOneUpstream(['groq', 'google'], provider);
  let freeway: RunningFreeway;
  let ai: GoogleGenAI;
  before(function () {
    freeway = suite.freeway;
    // A placeholder key, as the SDK insists on one; the provider key goes in a header.
    ai = new GoogleGenAI({ apiKey: 'freeway', httpOptions: { baseUrl: freeway.url, headers: keyHeaders('groq') } });
  });

  it('generateContent: the text, the usage, the model that answered', async function () {
    const response = await ai.models.generateContent({
      model: 'gemini-3.8-flash',
      contents: 'Say hi',
      config: { systemInstruction: 'Be brief', temperature: 0.2, maxOutputTokens: 50, thinkingConfig: { thinkingBudget: 0 } },
    });
    expect(response.text).to.equal('Hello there friend');
    expect(response.usageMetadata).to.deep.equal({ promptTokenCount: 7, candidatesTokenCount: 3, totalTokenCount: 10 });
    expect(response.modelVersion).to.equal('groq/openai/gpt-oss-120b');
    expect(response.responseId).to.be.a('string');
    const sent = suite.upstream.requests[0] as SeenRequest;
    expect(sent.path).to.equal('/chat/completions');
    expect(sent.body).to.deep.include({ messages: [{ role: 'system', content: 'Be brief' }, { role: 'user', content: 'Say hi' }], temperature: 0.2, max_tokens: 50 });
  });

  it('generateContentStream: the chunks, the finish on the last', async function () {
    const stream = await ai.models.generateContentStream({ model: 'groq/openai/gpt-oss-120b', contents: 'Say hi' });
    const texts: string[] = [];
    const finishes: unknown[] = [];
    for await (const chunk of stream) {
      texts.push(chunk.text ?? '');
      finishes.push(chunk.candidates?.[0]?.finishReason);
    }
    expect(texts.join('')).to.equal('Hello there friend');
    expect(finishes.at(-1)).to.equal('STOP');
    expect(finishes.slice(0, -1).every((finish) => finish === undefined)).to.equal(true);
  });

  it('countTokens: the estimate, with no upstream call', async function () {
    const counted = await ai.models.countTokens({ model: 'free:auto', contents: 'How many tokens?' });
    expect(counted.totalTokens).to.equal(4);
    expect(suite.upstream.requests).to.have.length(0);
  });

  it("embedContent: Google's embedding model by its own name, with a Google key", async function () {
    const google = new GoogleGenAI({ apiKey: 'freeway', httpOptions: { baseUrl: freeway.url, headers: keyHeaders('google') } });
    const one = await google.models.embedContent({ model: 'gemini-embedding-001', contents: 'hello' });
    expect(one.embeddings).to.deep.equal([{ values: [5, 104, 5] }]);
    const many = await google.models.embedContent({ model: 'gemini-embedding-001', contents: ['hello', 'world!'], config: { taskType: 'RETRIEVAL_DOCUMENT', outputDimensionality: 768 } });
    expect(many.embeddings).to.deep.equal([{ values: [5, 104, 5] }, { values: [6, 119, 5] }]);
    expect(suite.upstream.requests.every((req) => req.path.startsWith('/models/gemini-embedding-001:'))).to.equal(true);
  });

  it("a function-calling round trip through a non-Google model: the call, the caller's result, the answer", async function () {
    const tools = [
      {
        functionDeclarations: [
          { name: 'get_weather', description: 'Weather', parameters: { type: Type.OBJECT, properties: { city: { type: Type.STRING } }, required: ['city'] } },
          { name: 'get_time', description: 'Time', parametersJsonSchema: { type: 'object', properties: { tz: { type: 'string' } } } },
        ],
      },
    ];
    const contents: Content[] = [{ role: 'user', parts: [{ text: 'Weather in Paris?' }] }];
    const first = await ai.models.generateContent({
      model: 'free:tool-use',
      contents,
      config: { tools, toolConfig: { functionCallingConfig: { mode: FunctionCallingConfigMode.ANY, allowedFunctionNames: ['get_weather'] } } },
    });
    const call = first.functionCalls?.[0];
    expect(first.functionCalls).to.have.length(1);
    expect(call).to.deep.equal({ id: 'call_1', name: 'get_weather', args: { city: 'Paris' } });
    contents.push(first.candidates?.[0]?.content as Content, { role: 'user', parts: [{ functionResponse: { id: call?.id, name: 'get_weather', response: { output: 'sunny' } } }] });
    const second = await ai.models.generateContent({ model: 'free:tool-use', contents, config: { tools } });
    expect(second.text).to.equal('It is sunny in Paris');
    const sent = suite.upstream.requests.at(-1)?.body?.messages as any[];
    expect(sent.at(-1)).to.deep.equal({ role: 'tool', tool_call_id: 'call_1', content: 'sunny' });
  });

  it("errors: an ApiError with the HTTP status and Google's envelope, before and after the stream started", async function () {
    const unknown = await rejected(() => ai.models.generateContent({ model: 'free:nope', contents: 'x' }));
    expect(unknown.status).to.equal(404);
    expect(JSON.parse(unknown.message)).to.deep.equal({
      error: { code: 404, message: 'Unknown model: free:nope. GET /v1/models lists the models.', status: 'NOT_FOUND' },
    });
    const keyless = new GoogleGenAI({ apiKey: 'freeway', httpOptions: { baseUrl: freeway.url } });
    const noKey = await rejected(() => keyless.models.generateContent({ model: 'gemini-3.8-flash', contents: 'x' }));
    expect(noKey.status).to.equal(401);
    expect(JSON.parse(noKey.message).error.status).to.equal('UNAUTHENTICATED');

    suite.upstream.handle((_req, res) => openAIError(res, 500, 'Upstream broke'));
    const failed = await rejected(() => ai.models.generateContent({ model: 'groq/openai/gpt-oss-120b', contents: 'x' }));
    expect(failed.status).to.equal(502);
    expect(JSON.parse(failed.message).error).to.include({ code: 502, status: 'UNAVAILABLE' });

    suite.upstream.handle((_req, res) => openAISSE(res, [{ choices: [{ index: 0, delta: { role: 'assistant', content: 'partial ' }, finish_reason: null }] }], false));
    const texts: string[] = [];
    const midStream = await rejected(async () => {
      for await (const chunk of await ai.models.generateContentStream({ model: 'groq/openai/gpt-oss-120b', contents: 'x' })) texts.push(chunk.text ?? '');
    });
    expect(texts).to.deep.equal(['partial ']);
    expect(midStream.status).to.equal(502);
    expect(midStream.message).to.include('UNAVAILABLE').and.include('The stream from groq failed after it started');
  });

  it("models.list and models.get with apiVersion 'v1beta' (GET /v1/models stays OpenAI's)", async function () {
    const beta = new GoogleGenAI({ apiKey: 'freeway', httpOptions: { baseUrl: freeway.url, apiVersion: 'v1beta' } });
    const names: string[] = [];
    for await (const model of await beta.models.list({ config: { pageSize: 50 } })) names.push(model.name ?? '');
    expect(names[0]).to.equal('models/free:auto');
    expect(names).to.include('models/google/gemini-3.8-flash').and.include('models/google/gemini-embedding-001');
    expect(new Set(names).size).to.equal(names.length);
    const model = await beta.models.get({ model: 'google/gemini-3.8-flash' });
    expect(model).to.include({ name: 'models/google/gemini-3.8-flash', inputTokenLimit: 1048576, outputTokenLimit: 65536 });
    expect(model.supportedActions).to.deep.equal(['generateContent', 'streamGenerateContent', 'countTokens']);
  });
});
