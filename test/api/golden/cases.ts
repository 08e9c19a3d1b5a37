/**
 * The upstream answers the golden encoder tests start from, and the requests
 * each client API is asked with. `scripts/record-golden.ts` plays each answer
 * to the AI SDK provider its plugin builds, saves the stream parts and the whole
 * answer it made of them (`<case>.parts.json`, `<case>.whole.json`), and what
 * each API's encoder makes of those (`<case>.<api>.sse`, `<case>.<api>.json`).
 *
 * The bodies are recorded provider answers, shortened (fewer deltas; long
 * signatures cut), kept as the AI SDK's own tests keep them (github.com/vercel/ai,
 * read 2026-11-25):
 * - OpenAI chat.completion.chunk streams and chat.completion bodies:
 *   packages/openai/src/chat/__fixtures__/openai-text.chunks.txt and openai-text.json
 *   (gpt-4.1-nano), packages/openai-compatible/src/chat/__fixtures__/issue-15789-step-1.chunks.txt
 *   (gpt-4o tool calls: the call's id and name first, then its arguments).
 * - Groq: packages/groq/src/__fixtures__/groq-reasoning.chunks.txt (qwen3-32b,
 *   `delta.reasoning`), groq-tool-call.chunks.txt and groq-tool-call.json (the final
 *   chunk's `x_groq.usage`, the body's `x_groq`).
 * - Gemini: packages/google/src/__fixtures__/google-tool-call.chunks.txt and
 *   google-tool-call.json (a whole `functionCall` part in one chunk),
 *   google-reasoning-gemini3.chunks.txt and google-reasoning-gemini3.json (Gemini 3's
 *   thought signature: on an empty text part with the finish when streamed, on the text
 *   part when whole).
 * - Token log probabilities: OpenAI's ChatCompletionTokenLogprob (`token`,
 *   `logprob`, `bytes`, `top_logprobs`) in `choices[].logprobs.content`, as the
 *   OpenAI API reference's chat completion chunk object documents it.
 * - A failure mid-stream: OpenRouter's mid-stream error, an ordinary `data:` chunk
 *   with a top-level `error` field and finish_reason `error`
 *   (https://openrouter.ai/docs/api-reference/streaming, "Handling Errors During
 *   Streaming", read 2026-11-25).
 */

/** A provider plugin whose AI SDK model the answer is played to: OpenAI-compatible (Cerebras), Groq's own, Gemini's. */
export type GoldenProvider = 'cerebras' | 'groq' | 'google';

export type GoldenApi = 'chat' | 'responses' | 'messages' | 'gemini';

export interface GoldenCase {
  /** The fixtures' file stem. */
  readonly name: string;
  /** What the case shows, in words (the test's title). */
  readonly about: string;
  readonly provider: GoldenProvider;
  readonly modelId: string;
  /** The streamed answer's events (JSON values), in order. */
  readonly chunks: readonly unknown[];
  /** OpenAI-compatible streams end with `data: [DONE]`; false for a stream cut short. */
  readonly done?: boolean;
  /** The same answer as one JSON body (a caller that did not stream); absent where there is none. */
  readonly whole?: unknown;
  /** The caller asked for token log probabilities: the provider's raw chunks are read too. */
  readonly logprobs?: boolean;
  /** Leave the recorded finish part out: a stream that ended without one. */
  readonly dropFinish?: boolean;
  /** What Freeway sends after the encoder threw: the pipeline's `fail(status, type, message)`. */
  readonly fail?: readonly [number, 'freeway_provider_error' | 'server_error', string];
  /** The request bodies, for the APIs this case is played through. */
  readonly requests: Partial<Record<GoldenApi, Record<string, unknown>>>;
}

const openAI = { id: 'chatcmpl-D8Z5oo6uDh67AD85p73ksdT1KxhE0', object: 'chat.completion.chunk', created: 1770933892, model: 'gpt-4.1-nano-2025-04-14', service_tier: 'default', system_fingerprint: 'fp_de604bd877' };
const openAIDelta = (delta: Record<string, unknown>, finish: string | null = null, extra: Record<string, unknown> = {}) => ({
  ...openAI,
  choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }],
  usage: null,
  ...extra,
});
const openAIUsage = {
  prompt_tokens: 58,
  completion_tokens: 12,
  total_tokens: 70,
  prompt_tokens_details: { cached_tokens: 0, audio_tokens: 0 },
  completion_tokens_details: { reasoning_tokens: 0, audio_tokens: 0, accepted_prediction_tokens: 0, rejected_prediction_tokens: 0 },
};
const openAIUsageChunk = (usage: Record<string, unknown>) => ({ ...openAI, choices: [], usage });
const openAIWhole = (message: Record<string, unknown>, finish: string, usage: Record<string, unknown>, logprobs: unknown = null) => ({
  id: 'chatcmpl-D8Z5f52zQqikDBEKQMQoYcWMcWPeU',
  object: 'chat.completion',
  created: 1770933883,
  model: 'gpt-4.1-nano-2025-04-14',
  choices: [{ index: 0, message: { role: 'assistant', refusal: null, annotations: [], ...message }, logprobs, finish_reason: finish }],
  usage,
  service_tier: 'default',
  system_fingerprint: 'fp_de604bd877',
});

const roleChunk = openAIDelta({ role: 'assistant', content: '', refusal: null });
const words = ['**', 'Holiday', ' Name', ':**', ' Harmony', ' Day'];
const textChunks = [roleChunk, ...words.map((word) => openAIDelta({ content: word }))];

const weather = { type: 'function', function: { name: 'weather', description: 'The weather in a city', parameters: { type: 'object', properties: { location: { type: 'string' } }, required: ['location'] } } };
const responsesWeather = { type: 'function', name: 'weather', description: 'The weather in a city', parameters: weather.function.parameters };
const messagesWeather = { name: 'weather', description: 'The weather in a city', input_schema: weather.function.parameters };

const hi = 'Invent a holiday';
const chat = (extra: Record<string, unknown> = {}) => ({ model: 'free:auto', messages: [{ role: 'user', content: hi }], stream: true, ...extra });
const responses = (extra: Record<string, unknown> = {}) => ({ model: 'free:auto', input: hi, stream: true, ...extra });
const messages = (extra: Record<string, unknown> = {}) => ({ model: 'claude-sonnet-4-6', max_tokens: 1024, messages: [{ role: 'user', content: hi }], stream: true, ...extra });
/** Gemini's body; the model, the method and `alt=sse` come from its path (golden/encode.ts). */
const gemini = (extra: Record<string, unknown> = {}) => ({ contents: [{ role: 'user', parts: [{ text: hi }] }], ...extra });
const geminiWeather = { functionDeclarations: [{ name: 'weather', description: 'The weather in a city', parametersJsonSchema: weather.function.parameters }] };

const toolCallChunks = [
  openAIDelta({ role: 'assistant', content: null }),
  openAIDelta({ tool_calls: [{ index: 0, id: 'call_NZa7xqfefoaMI2YYHowVXVlU', type: 'function', function: { name: 'weather', arguments: '' } }] }),
  openAIDelta({ tool_calls: [{ index: 0, function: { arguments: '{"location"' } }] }),
  openAIDelta({ tool_calls: [{ index: 0, function: { arguments: ': "Paris"}' } }] }),
  openAIDelta({ tool_calls: [{ index: 1, id: 'call_Q3fHvdMl2PWnNLxAfG8vX4Tc', type: 'function', function: { name: 'weather', arguments: '' } }] }),
  openAIDelta({ tool_calls: [{ index: 1, function: { arguments: '{"location"' } }] }),
  openAIDelta({ tool_calls: [{ index: 1, function: { arguments: ': "Oslo"}' } }] }),
  openAIDelta({}, 'tool_calls'),
  openAIUsageChunk(openAIUsage),
];
const toolCallWhole = openAIWhole(
  {
    content: null,
    tool_calls: [
      { id: 'call_NZa7xqfefoaMI2YYHowVXVlU', type: 'function', function: { name: 'weather', arguments: '{"location": "Paris"}' } },
      { id: 'call_Q3fHvdMl2PWnNLxAfG8vX4Tc', type: 'function', function: { name: 'weather', arguments: '{"location": "Oslo"}' } },
    ],
  },
  'tool_calls',
  openAIUsage,
);

const groq = { id: 'chatcmpl-3556c041-562b-471f-9a90-763dbcea5a3f', object: 'chat.completion.chunk', created: 1770770846, model: 'qwen/qwen3-32b', system_fingerprint: 'fp_78ac7f3229' };
const groqDelta = (delta: Record<string, unknown>, finish: string | null = null, extra: Record<string, unknown> = {}) => ({ ...groq, choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }], ...extra });
const groqUsage = { queue_time: 0.041520249, prompt_tokens: 210, prompt_time: 0.010407901, completion_tokens: 15, completion_time: 0.046601227, total_tokens: 225, total_time: 0.057009128 };
const groqStart = groqDelta({ role: 'assistant', content: '' }, null, { x_groq: { id: 'req_01kh52nmbjem9bfhxdbabnjv0x', seed: 872656815 } });

/** ChatCompletionTokenLogprob entries, one per token. */
const tokenLogprob = (token: string, logprob: number) => ({ token, logprob, bytes: [...Buffer.from(token)], top_logprobs: [] });

const geminiSignature = 'EqUCCqICAb4+9vsh8Pd5taZVoPzSvjWWwzBrvhEQWBLCGa7IdY8FBMm7Z6dCKFU3Ft0la15gF7RaHe1NlPRygQec0bFwPDfMwGcUOMNiJiNIKxusCs4e';
const geminiCall = { functionCall: { name: 'weather', args: { location: 'San Francisco' } }, thoughtSignature: geminiSignature };
const geminiUsage = { promptTokenCount: 29, candidatesTokenCount: 15, totalTokenCount: 89, promptTokensDetails: [{ modality: 'TEXT', tokenCount: 29 }], thoughtsTokenCount: 45 };
const geminiIds = { modelVersion: 'gemini-3-pro-preview', responseId: 'b36LacjwM668nsEP2tbsgQQ' };
const gemini3Signature = 'EpAICo0IAb4+9vuku3oDHR5EQSMfPm5IpmH06lgm9aGICNAJKKfpVXU3971qpSGSFiIVb60jKjMU182kVfRyl9bViwRtwI1o4nFI';
const gemini3Usage = { promptTokenCount: 9, candidatesTokenCount: 23, totalTokenCount: 334, promptTokensDetails: [{ modality: 'TEXT', tokenCount: 9 }], thoughtsTokenCount: 302 };
const gemini3Ids = { modelVersion: 'gemini-3-pro-preview', responseId: 'M3iLaY-AI7zTxN8P3Piw4Qg' };

const providerDisconnected = 'Provider disconnected';

/** The recorded OpenAI text answer, streamed and whole, ending with `finish`. */
const openAIText = (finish: string) =>
  ({
    provider: 'cerebras',
    modelId: 'gpt-oss-120b',
    chunks: [...textChunks, openAIDelta({}, finish), openAIUsageChunk(openAIUsage)],
    whole: openAIWhole({ content: words.join('') }, finish, openAIUsage),
  }) as const;

/** A Groq stream cut after two deltas: no finish chunk, no `[DONE]`. */
const interrupted: GoldenCase = {
  name: 'interrupted',
  about: 'a stream cut before it finished: the finish part says interrupted',
  provider: 'groq',
  modelId: 'qwen/qwen3-32b',
  chunks: [groqStart, ...['There', ' are'].map((content) => groqDelta({ content }))],
  done: false,
  fail: [502, 'freeway_provider_error', 'The stream from groq failed after it started: the upstream stream ended before it finished'],
  requests: { chat: chat(), responses: responses(), messages: messages(), gemini: gemini() },
};

export const goldenCases: readonly GoldenCase[] = [
  {
    name: 'text',
    about: 'plain text',
    ...openAIText('stop'),
    requests: { chat: chat(), responses: responses(), messages: messages(), gemini: gemini() },
  },
  {
    name: 'usage',
    about: 'usage with stream_options.include_usage, cached and reasoning tokens reported',
    provider: 'cerebras',
    modelId: 'gpt-oss-120b',
    chunks: [
      ...textChunks,
      openAIDelta({}, 'stop'),
      openAIUsageChunk({ ...openAIUsage, prompt_tokens_details: { cached_tokens: 32, audio_tokens: 0 }, completion_tokens_details: { ...openAIUsage.completion_tokens_details, reasoning_tokens: 4 } }),
    ],
    whole: openAIWhole({ content: words.join('') }, 'stop', { ...openAIUsage, prompt_tokens_details: { cached_tokens: 32, audio_tokens: 0 }, completion_tokens_details: { ...openAIUsage.completion_tokens_details, reasoning_tokens: 4 } }),
    requests: { chat: chat({ stream_options: { include_usage: true } }), responses: responses(), messages: messages(), gemini: gemini() },
  },
  {
    name: 'reasoning',
    about: 'reasoning, then text (Groq)',
    provider: 'groq',
    modelId: 'qwen/qwen3-32b',
    chunks: [
      groqStart,
      ...['Okay', ',', ' let', ' me', ' count', '.'].map((reasoning) => groqDelta({ reasoning })),
      ...['There', ' are', ' three', " r's."].map((content) => groqDelta({ content })),
      groqDelta({}, 'stop', { x_groq: { id: 'req_01kh52nmbjem9bfhxdbabnjv0x', usage: groqUsage }, usage: groqUsage }),
    ],
    whole: {
      id: 'chatcmpl-1fd017fc-60b8-44eb-a736-375b8e1bc3e7',
      object: 'chat.completion',
      created: 1770770815,
      model: 'qwen/qwen3-32b',
      choices: [{ index: 0, message: { role: 'assistant', content: "There are three r's.", reasoning: 'Okay, let me count.' }, logprobs: null, finish_reason: 'stop' }],
      usage: groqUsage,
      usage_breakdown: null,
      system_fingerprint: 'fp_f8b414701e',
      x_groq: { id: 'req_01kh52madzem68scv0bcz3vm00', seed: 1790130236 },
      service_tier: 'on_demand',
    },
    requests: {
      chat: chat({ stream_options: { include_usage: true } }),
      responses: responses({ reasoning: { effort: 'low' } }),
      messages: messages({ thinking: { type: 'enabled', budget_tokens: 512 } }),
      gemini: gemini({ generationConfig: { thinkingConfig: { includeThoughts: true, thinkingBudget: 512 } } }),
    },
  },
  {
    name: 'tool-calls',
    about: 'two streamed tool calls',
    provider: 'cerebras',
    modelId: 'gpt-oss-120b',
    chunks: toolCallChunks,
    whole: toolCallWhole,
    requests: { chat: chat({ tools: [weather] }), responses: responses({ tools: [responsesWeather] }), messages: messages({ tools: [messagesWeather] }), gemini: gemini({ tools: [geminiWeather] }) },
  },
  {
    name: 'legacy-functions',
    about: 'legacy functions: the first call as function_call',
    provider: 'cerebras',
    modelId: 'gpt-oss-120b',
    chunks: toolCallChunks,
    whole: toolCallWhole,
    requests: { chat: chat({ functions: [weather.function] }) },
  },
  {
    name: 'gemini-tool-call',
    about: 'a whole tool call in one part (Gemini)',
    provider: 'google',
    modelId: 'gemini-2.5-flash',
    chunks: [
      { candidates: [{ content: { parts: [geminiCall], role: 'model' }, index: 0 }], usageMetadata: geminiUsage, ...geminiIds },
      { candidates: [{ content: { parts: [{ text: '' }], role: 'model' }, finishReason: 'STOP', index: 0 }], usageMetadata: geminiUsage, ...geminiIds },
    ],
    whole: {
      candidates: [{ content: { parts: [geminiCall], role: 'model' }, finishReason: 'STOP', index: 0, finishMessage: 'Model generated function call(s).' }],
      usageMetadata: geminiUsage,
      ...geminiIds,
    },
    requests: { chat: chat({ tools: [weather] }), responses: responses({ tools: [responsesWeather] }), messages: messages({ tools: [messagesWeather] }), gemini: gemini({ tools: [geminiWeather] }) },
  },
  {
    name: 'gemini-signature',
    about: "Gemini 3's thought signature on text (Google)",
    provider: 'google',
    modelId: 'gemini-3-pro-preview',
    chunks: [
      { candidates: [{ content: { parts: [{ text: 'There are **3** "r"s in strawberry.\n\n' }], role: 'model' }, index: 0 }], usageMetadata: gemini3Usage, ...gemini3Ids },
      { candidates: [{ content: { parts: [{ text: 'St**r**awbe**rr**y' }], role: 'model' }, index: 0 }], usageMetadata: gemini3Usage, ...gemini3Ids },
      { candidates: [{ content: { parts: [{ text: '', thoughtSignature: gemini3Signature }], role: 'model' }, finishReason: 'STOP', index: 0 }], usageMetadata: gemini3Usage, ...gemini3Ids },
    ],
    whole: {
      candidates: [{ content: { parts: [{ text: 'There are **3** "r"s in strawberry.\n\nSt**r**awbe**rr**y', thoughtSignature: gemini3Signature }], role: 'model' }, finishReason: 'STOP', index: 0 }],
      usageMetadata: gemini3Usage,
      ...gemini3Ids,
    },
    requests: { chat: chat(), responses: responses(), messages: messages(), gemini: gemini() },
  },
  {
    name: 'logprobs',
    about: 'token log probabilities (chat)',
    provider: 'cerebras',
    modelId: 'gpt-oss-120b',
    logprobs: true,
    chunks: [
      roleChunk,
      { ...openAIDelta({ content: 'Hello' }), choices: [{ index: 0, delta: { content: 'Hello' }, logprobs: { content: [tokenLogprob('Hello', -0.0009)], refusal: null }, finish_reason: null }] },
      { ...openAIDelta({ content: ' there' }), choices: [{ index: 0, delta: { content: ' there' }, logprobs: { content: [tokenLogprob(' there', -0.31725305)], refusal: null }, finish_reason: null }] },
      openAIDelta({}, 'stop'),
      openAIUsageChunk(openAIUsage),
    ],
    whole: openAIWhole({ content: 'Hello there' }, 'stop', openAIUsage, { content: [tokenLogprob('Hello', -0.0009), tokenLogprob(' there', -0.31725305)], refusal: null }),
    requests: { chat: chat({ logprobs: true }) },
  },
  {
    name: 'length',
    about: 'an answer cut by its token budget (finish reason length)',
    ...openAIText('length'),
    requests: { chat: chat({ max_tokens: 6 }), responses: responses({ max_output_tokens: 16 }), messages: messages({ max_tokens: 6 }), gemini: gemini({ generationConfig: { maxOutputTokens: 6 } }) },
  },
  {
    name: 'error',
    about: 'an error part mid-stream, then the API’s error event',
    provider: 'cerebras',
    modelId: 'gpt-oss-120b',
    chunks: [...textChunks.slice(0, 3), { ...openAI, error: { code: 'server_error', message: providerDisconnected }, choices: [{ index: 0, delta: { content: '' }, finish_reason: 'error' }] }],
    fail: [502, 'freeway_provider_error', `The stream from cerebras failed after it started: ${providerDisconnected}`],
    requests: { chat: chat(), responses: responses(), messages: messages(), gemini: gemini() },
  },
  interrupted,
  {
    ...interrupted,
    name: 'unfinished',
    about: 'parts that end without a finish part: end() throws',
    dropFinish: true,
    fail: [502, 'freeway_provider_error', 'The stream from groq failed after it started: the upstream stream ended without a finish reason'],
  },
];
