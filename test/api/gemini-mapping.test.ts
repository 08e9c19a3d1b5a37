/**
 * Gemini's request and answer, mapped: what an OpenAI-compatible provider (Cerebras, Groq)
 * and Google's own models are sent for a GenerateContentRequest, and what the caller gets
 * back, including function calls paired by id or by name and order, thoughts, JSON mode with
 * Gemini's upper-case schema types, and thought signatures (passed unchanged to and from
 * Google's own models, dropped for others, never made up).
 */
import { expect } from 'chai';
import type { RunningFreeway } from '../support/freeway.ts';
import { expectGoogleError, geminiChunk, geminiEvents, geminiUpstream, isGeminiPath, postJson, textOf, userText } from '../support/gemini.ts';
import { keyHeaders } from '../support/keys.ts';
import { freewayOverOneUpstream } from '../support/suite.ts';
import { openAISSE, openAIText, openAIToolCall, usage, type SeenRequest } from '../support/upstream.ts';

const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==';
const cerebras = keyHeaders('cerebras');
const google = keyHeaders('google');

const generate = (freeway: RunningFreeway, model: string, body: unknown, headers: Record<string, string>, stream = false): Promise<Response> =>
  postJson(freeway, `/v1beta/models/${model}:${stream ? 'streamGenerateContent?alt=sse' : 'generateContent'}`, body, headers);

/** A conversation with a signed thought, signed text and a signed call, and the call's result. */
const signedHistory = [
  userText('List the files'),
  {
    role: 'model',
    parts: [
      { text: 'I should list them.', thought: true, thoughtSignature: 'sig-thought' },
      { text: 'Let me look.', thoughtSignature: 'sig-text' },
      { functionCall: { id: 'call_a', name: 'list_directory', args: { dir_path: '.' } }, thoughtSignature: 'sig-call' },
      { functionCall: { id: 'call_b', name: 'read_file', args: { file_path: 'a.txt' } }, thoughtSignature: 'skip_thought_signature_validator' },
    ],
  },
  {
    role: 'user',
    parts: [
      { functionResponse: { id: 'call_a', name: 'list_directory', response: { output: 'a.txt' } } },
      { functionResponse: { id: 'call_b', name: 'read_file', response: { output: 'hello' } } },
    ],
  },
];
const fileTools = [
  {
    functionDeclarations: [
      { name: 'list_directory', parametersJsonSchema: { type: 'object', properties: { dir_path: { type: 'string' } }, required: ['dir_path'] } },
      { name: 'read_file', parametersJsonSchema: { type: 'object', properties: { file_path: { type: 'string' } } } },
    ],
  },
];

describe('Gemini API: the mapping in and out', function () {
  const suite = freewayOverOneUpstream(['cerebras', 'groq', 'google', 'deepseek'], (req, res) =>
    isGeminiPath(req) ? geminiUpstream(res, [geminiChunk([{ text: 'Done.' }], true)]) : openAIText(res, 'Done.', req),
  );
  let freeway: RunningFreeway;
  before(function () {
    freeway = suite.freeway;
  });
  const sent = (): Record<string, any> => (suite.upstream.requests[0] as SeenRequest).body as Record<string, any>;

  describe('to an OpenAI-compatible provider', function () {
    it('system text, consecutive user turns as one message, text files as text, and the generation settings', async function () {
      const body = {
        systemInstruction: { role: 'user', parts: [{ text: 'Be brief.' }] },
        contents: [userText('<session_context>'), { role: 'user', parts: [{ text: 'Summarise:' }, { inlineData: { mimeType: 'text/plain', data: Buffer.from('file text').toString('base64') } }] }],
        generationConfig: { temperature: 0.5, topP: 0.9, topK: 64, maxOutputTokens: 100, stopSequences: ['END'], seed: 7, thinkingConfig: { includeThoughts: true, thinkingLevel: 'HIGH' } },
        safetySettings: [{ category: 'HARM_CATEGORY_HARASSMENT', threshold: 'BLOCK_NONE' }],
        cachedContent: 'cachedContents/ignored',
      };
      expect((await generate(freeway, 'cerebras/gpt-oss-120b', body, cerebras)).status).to.equal(200);
      expect(sent()).to.deep.include({
        messages: [
          { role: 'system', content: 'Be brief.' },
          { role: 'user', content: [{ type: 'text', text: '<session_context>' }, { type: 'text', text: 'Summarise:' }, { type: 'text', text: 'file text' }] },
        ],
        temperature: 0.5,
        top_p: 0.9,
        max_tokens: 100,
        stop: ['END'],
        seed: 7,
        reasoning_effort: 'high',
      });
    });

    it("tools: Gemini's upper-case `parameters` and JSON Schema `parametersJsonSchema` as JSON Schema, and the calling modes", async function () {
      const tools = [
        {
          functionDeclarations: [
            { name: 'get_weather', description: 'Weather', parameters: { type: 'OBJECT', properties: { city: { type: 'STRING', nullable: true }, days: { type: 'INTEGER', minimum: 1 }, tags: { type: 'ARRAY', items: { type: 'STRING' }, minItems: '1' } }, required: ['city'], propertyOrdering: ['city', 'days'] } },
            { name: 'get_time', parametersJsonSchema: { $schema: 'http://json-schema.org/draft-07/schema#', type: 'object', properties: { tz: { type: 'string' } }, additionalProperties: false } },
          ],
        },
      ];
      await generate(freeway, 'cerebras/gpt-oss-120b', { contents: [userText('Weather?')], tools }, cerebras);
      expect(sent().tools).to.deep.equal([
        {
          type: 'function',
          function: {
            name: 'get_weather',
            description: 'Weather',
            parameters: { type: 'object', properties: { city: { type: ['string', 'null'] }, days: { type: 'integer', minimum: 1 }, tags: { type: 'array', items: { type: 'string' }, minItems: 1 } }, required: ['city'] },
          },
        },
        { type: 'function', function: { name: 'get_time', parameters: { type: 'object', properties: { tz: { type: 'string' } }, additionalProperties: false } } },
      ]);
      expect(sent()).to.not.have.property('tool_choice');
      const modes: Array<[Record<string, unknown>, unknown, string[]]> = [
        [{ mode: 'ANY', allowedFunctionNames: ['get_time'] }, { type: 'function', function: { name: 'get_time' } }, ['get_time']],
        [{ mode: 'ANY' }, 'required', ['get_weather', 'get_time']],
        [{ mode: 'NONE' }, 'none', ['get_weather', 'get_time']],
        [{ mode: 'AUTO' }, undefined, ['get_weather', 'get_time']],
      ];
      for (const [functionCallingConfig, choice, names] of modes) {
        suite.upstream.requests.length = 0;
        await generate(freeway, 'cerebras/gpt-oss-120b', { contents: [userText('Weather?')], tools, toolConfig: { functionCallingConfig } }, cerebras);
        expect(sent().tool_choice, JSON.stringify(functionCallingConfig)).to.deep.equal(choice);
        expect(sent().tools.map((tool: { function: { name: string } }) => tool.function.name)).to.deep.equal(names);
      }
    });

    it('tools Google runs itself (googleSearch, urlContext) are left out and named in X-Freeway-Dropped-Tools', async function () {
      const tools = [{ googleSearch: {} }, { functionDeclarations: [{ name: 'get_time' }], urlContext: {} }];
      const res = await generate(freeway, 'cerebras/gpt-oss-120b', { contents: [userText('News?')], tools }, cerebras);
      expect(res.status).to.equal(200);
      expect(res.headers.get('x-freeway-dropped-tools')).to.equal('googleSearch, urlContext');
      expect(sent().tools).to.deep.equal([{ type: 'function', function: { name: 'get_time', parameters: { type: 'object', properties: {} } } }]);
    });

    it('a careless or hostile tool list: names no header can carry and thousands of them are named safely and briefly', async function () {
      const odd = { 'line\nbreak': {}, 'ünïcode': {}, ['x'.repeat(500)]: {} };
      const many = Object.fromEntries(Array.from({ length: 5000 }, (_, i) => [`tool${i}`, {}]));
      const res = await generate(freeway, 'cerebras/gpt-oss-120b', { contents: [userText('News?')], tools: [odd, many, { functionDeclarations: [{ name: 'get_time' }] }] }, cerebras);
      expect(res.status).to.equal(200);
      const header = res.headers.get('x-freeway-dropped-tools') ?? '';
      expect(header.startsWith(`line_break, _n_code, ${'x'.repeat(64)}..., tool0, tool1,`), header.slice(0, 200)).to.equal(true);
      expect(header.endsWith(', tool12 and 4987 more')).to.equal(true);
      expect(sent().tools.map((tool: { function: { name: string } }) => tool.function.name)).to.deep.equal(['get_time']);
    });

    it('JSON mode: responseMimeType application/json with an upper-case responseJsonSchema, as Gemini CLI sends it', async function () {
      const schema = { type: 'OBJECT', properties: { complexity_reasoning: { type: 'STRING' }, complexity_score: { type: 'INTEGER' } }, required: ['complexity_reasoning', 'complexity_score'] };
      suite.upstream.handle((req, res) => openAIText(res, '{"complexity_reasoning":"simple","complexity_score":10}', req));
      const res = await generate(freeway, 'cerebras/gpt-oss-120b', { contents: [userText('Say hi')], generationConfig: { responseMimeType: 'application/json', responseJsonSchema: schema } }, cerebras);
      const answer = (await res.json()) as any;
      expect(JSON.parse(textOf([answer]))).to.deep.equal({ complexity_reasoning: 'simple', complexity_score: 10 });
      expect(sent().response_format).to.deep.equal({
        type: 'json_schema',
        json_schema: { schema: { type: 'object', properties: { complexity_reasoning: { type: 'string' }, complexity_score: { type: 'integer' } }, required: ['complexity_reasoning', 'complexity_score'] }, strict: true, name: 'response' },
      });
    });

    it('function calls and responses paired by id, thoughts and every thought signature left out', async function () {
      await generate(freeway, 'cerebras/gpt-oss-120b', { contents: signedHistory, tools: fileTools }, cerebras);
      const messages = sent().messages as any[];
      expect(messages).to.deep.equal([
        { role: 'user', content: 'List the files' },
        {
          role: 'assistant',
          content: 'Let me look.',
          tool_calls: [
            { id: 'call_a', type: 'function', function: { name: 'list_directory', arguments: '{"dir_path":"."}' } },
            { id: 'call_b', type: 'function', function: { name: 'read_file', arguments: '{"file_path":"a.txt"}' } },
          ],
        },
        { role: 'tool', tool_call_id: 'call_a', content: 'a.txt' },
        { role: 'tool', tool_call_id: 'call_b', content: 'hello' },
      ]);
      const raw = JSON.stringify(sent());
      for (const secret of ['sig-', 'skip_thought_signature_validator', 'I should list them', 'extra_content']) expect(raw).to.not.include(secret);
    });

    it('calls without ids get ids of their own, and their responses are paired by name and order; other results as JSON', async function () {
      const contents = [
        userText('Read both'),
        { role: 'model', parts: [{ functionCall: { name: 'read_file', args: { file_path: 'a' } } }, { functionCall: { name: 'read_file', args: { file_path: 'b' } } }] },
        { role: 'user', parts: [{ functionResponse: { name: 'read_file', response: { output: 'A' } } }, { functionResponse: { name: 'read_file', response: { error: 'no such file' } } }] },
        { role: 'model', parts: [{ functionCall: { name: 'list_directory', args: {} } }] },
        { role: 'user', parts: [{ functionResponse: { name: 'list_directory', response: { files: ['a', 'b'], count: 2 } } }, { text: 'Now answer.' }] },
      ];
      await generate(freeway, 'cerebras/gpt-oss-120b', { contents, tools: fileTools }, cerebras);
      const messages = sent().messages as any[];
      expect(messages[1].tool_calls.map((call: { id: string }) => call.id)).to.deep.equal(['call_1_0', 'call_1_1']);
      expect(messages.slice(2, 4)).to.deep.equal([
        { role: 'tool', tool_call_id: 'call_1_0', content: 'A' },
        { role: 'tool', tool_call_id: 'call_1_1', content: 'no such file' },
      ]);
      expect(messages[4].tool_calls[0].id).to.equal('call_3_0');
      expect(messages.slice(5)).to.deep.equal([
        { role: 'tool', tool_call_id: 'call_3_0', content: '{"files":["a","b"],"count":2}' },
        { role: 'user', content: 'Now answer.' },
      ]);
    });

    it('400 for a functionResponse that answers no call', async function () {
      const contents = [userText('Hi'), { role: 'model', parts: [{ functionCall: { name: 'read_file', args: {} } }] }, { role: 'user', parts: [{ functionResponse: { name: 'list_directory', response: {} } }] }];
      await expectGoogleError(
        await generate(freeway, 'cerebras/gpt-oss-120b', { contents }, cerebras),
        400,
        'INVALID_ARGUMENT',
        'Validation failed: contents.2.parts.0.functionResponse: answers no functionCall of an earlier model turn (none with its id, and none named list_directory left unanswered)',
      );
    });

    it('images inline or by URL go to vision models, the URL passed on for the provider to fetch', async function () {
      const contents = [{ role: 'user', parts: [{ text: 'What is this?' }, { inlineData: { mimeType: 'image/png', data: PNG } }, { fileData: { fileUri: 'https://example.test/cat.jpg' } }] }];
      // Groq serves no vision model now: the alias has nothing to offer with a Groq key alone.
      await expectGoogleError(await generate(freeway, 'free:auto', { contents }, keyHeaders('groq')), 400, 'INVALID_ARGUMENT', /^Your keys \(X-Groq-Key\) have no model for free:auto that takes images; keys of .*X-Deepseek-Key.* do\.$/);
      const res = await generate(freeway, 'free:auto', { contents }, keyHeaders('groq', 'deepseek'));
      expect(res.headers.get('x-freeway-model')).to.equal('deepseek/deepseek-flash');
      expect(sent().messages[0].content).to.deep.equal([
        { type: 'text', text: 'What is this?' },
        { type: 'image_url', image_url: { url: `data:image/png;base64,${PNG}` } },
        { type: 'image_url', image_url: { url: 'https://example.test/cat.jpg' } },
      ]);
    });
  });

  describe("to Google's own models", function () {
    it('thought signatures go back unchanged on their parts (skip_thought_signature_validator too), a thought without its text; media as it came', async function () {
      const contents = [...signedHistory, { role: 'user', parts: [{ inlineData: { mimeType: 'application/pdf', data: 'JVBERi0=' } }, { fileData: { mimeType: 'image/png', fileUri: 'https://example.test/a.png' } }] }];
      await generate(freeway, 'google/gemini-3.8-flash', { contents, tools: fileTools }, google);
      const seen = sent().contents as any[];
      expect(seen[1]).to.deep.equal({
        role: 'model',
        parts: [
          { text: '', thought: true, thoughtSignature: 'sig-thought' },
          { text: 'Let me look.', thoughtSignature: 'sig-text' },
          { functionCall: { id: 'call_a', name: 'list_directory', args: { dir_path: '.' } }, thoughtSignature: 'sig-call' },
          { functionCall: { id: 'call_b', name: 'read_file', args: { file_path: 'a.txt' } }, thoughtSignature: 'skip_thought_signature_validator' },
        ],
      });
      expect(seen[2].parts.map((part: any) => part.functionResponse.id)).to.deep.equal(['call_a', 'call_b']);
      expect(seen[3].parts).to.deep.equal([{ inlineData: { mimeType: 'application/pdf', data: 'JVBERi0=' } }, { fileData: { mimeType: 'image/png', fileUri: 'https://example.test/a.png' } }]);
    });

    it("Google's signatures come back on the parts they came on, streamed and whole; thoughts only when asked for", async function () {
      suite.upstream.handle((_req, res) =>
        geminiUpstream(res, [
          geminiChunk([{ text: 'Thinking about files', thought: true, thoughtSignature: 'g-thought' }]),
          geminiChunk([{ text: 'Looking.', thoughtSignature: 'g-text' }]),
          geminiChunk([{ functionCall: { name: 'list_directory', args: { dir_path: '.' } }, thoughtSignature: 'g-call' }], true),
        ]),
      );
      const body = { contents: [userText('List the files')], tools: fileTools, generationConfig: { thinkingConfig: { includeThoughts: true } } };
      const events = geminiEvents(await (await generate(freeway, 'google/gemini-3.8-flash', body, google, true)).text());
      const parts = events.flatMap((event) => event.candidates[0].content.parts);
      expect(parts.slice(0, 2)).to.deep.equal([
        { text: 'Thinking about files', thought: true, thoughtSignature: 'g-thought' },
        { text: 'Looking.', thoughtSignature: 'g-text' },
      ]);
      const call = parts[2];
      expect(call.thoughtSignature).to.equal('g-call');
      expect(call.functionCall).to.include({ name: 'list_directory' });
      expect(call.functionCall.args).to.deep.equal({ dir_path: '.' });
      expect(call.functionCall.id).to.be.a('string').and.not.equal('');
      expect(events.at(-1).candidates[0].finishReason).to.equal('STOP');

      const whole = (await (await generate(freeway, 'google/gemini-3.8-flash', { ...body, generationConfig: {} }, google)).json()) as any;
      const wholeParts = whole.candidates[0].content.parts;
      // No thought without includeThoughts; the text's and the call's signatures as they came.
      expect(wholeParts.map((part: any) => part.text ?? part.functionCall.name)).to.deep.equal(['Looking.', 'list_directory']);
      expect(wholeParts[0].thoughtSignature).to.equal('g-text');
      expect(wholeParts[1].thoughtSignature).to.equal('g-call');
      const withThoughts = (await (await generate(freeway, 'google/gemini-3.8-flash', body, google)).json()) as any;
      expect(withThoughts.candidates[0].content.parts.slice(0, 2)).to.deep.equal([
        { text: 'Thinking about files', thought: true, thoughtSignature: 'g-thought' },
        { text: 'Looking.', thoughtSignature: 'g-text' },
      ]);
    });
  });

  describe('answers from other providers', function () {
    it('a streamed tool call is one whole functionCall part with its id, STOP, and no signature', async function () {
      suite.upstream.handle((_req, res) => openAIToolCall(res, 'list_directory', '{"dir_path":"."}'));
      const events = geminiEvents(await (await generate(freeway, 'cerebras/gpt-oss-120b', { contents: [userText('List')], tools: fileTools }, cerebras, true)).text());
      expect(events).to.have.length(1);
      expect(events[0].candidates).to.deep.equal([{ content: { role: 'model', parts: [{ functionCall: { id: 'call_1', name: 'list_directory', args: { dir_path: '.' } } }] }, finishReason: 'STOP', index: 0 }]);
      const whole = (await (await generate(freeway, 'cerebras/gpt-oss-120b', { contents: [userText('List')], tools: fileTools }, cerebras)).json()) as any;
      expect(whole.candidates[0].content.parts).to.deep.equal([{ functionCall: { id: 'call_1', name: 'list_directory', args: { dir_path: '.' } } }]);
      expect(JSON.stringify(whole)).to.not.include('thoughtSignature');
    });

    it("a model's reasoning as thought parts when includeThoughts, with thoughtsTokenCount; MAX_TOKENS for a cut answer", async function () {
      suite.upstream.handle((_req, res) =>
        openAISSE(res, [
          { choices: [{ index: 0, delta: { role: 'assistant', reasoning_content: 'Let me think.' }, finish_reason: null }] },
          { choices: [{ index: 0, delta: { content: 'Four' }, finish_reason: null }] },
          { choices: [{ index: 0, delta: {}, finish_reason: 'length' }], usage: { ...usage, completion_tokens_details: { reasoning_tokens: 2 } } },
        ]),
      );
      const body = (includeThoughts: boolean) => ({ contents: [userText('2+2?')], generationConfig: { thinkingConfig: { includeThoughts } } });
      const events = geminiEvents(await (await generate(freeway, 'cerebras/gpt-oss-120b', body(true), cerebras, true)).text());
      expect(events.flatMap((event) => event.candidates[0].content.parts)).to.deep.equal([{ text: 'Let me think.', thought: true }, { text: 'Four' }]);
      expect(events.at(-1).candidates[0].finishReason).to.equal('MAX_TOKENS');
      expect(events.at(-1).usageMetadata).to.deep.equal({ promptTokenCount: 7, candidatesTokenCount: 1, thoughtsTokenCount: 2, totalTokenCount: 10 });
      const whole = (await (await generate(freeway, 'cerebras/gpt-oss-120b', body(false), cerebras)).json()) as any;
      expect(whole.candidates[0].content.parts).to.deep.equal([{ text: 'Four' }]);
      expect(whole.candidates[0].finishReason).to.equal('MAX_TOKENS');
    });

    it('no usageMetadata when the provider reported none, and an empty text part for an empty answer', async function () {
      suite.upstream.handle((_req, res) => openAISSE(res, [{ choices: [{ index: 0, delta: { role: 'assistant', content: '' }, finish_reason: 'stop' }] }]));
      const events = geminiEvents(await (await generate(freeway, 'cerebras/gpt-oss-120b', { contents: [userText('Hi')] }, cerebras, true)).text());
      expect(events).to.have.length(1);
      expect(events[0]).to.not.have.property('usageMetadata');
      expect(events[0].candidates[0]).to.deep.equal({ content: { role: 'model', parts: [{ text: '' }] }, finishReason: 'STOP', index: 0 });
    });
  });
});
