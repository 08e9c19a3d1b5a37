import { bearerAuth } from '../openai-compatible.ts';
import { openAIQuotaHeaders, quotaReader } from '../quota.ts';
import { nextUtcMidnight, retryHintAt, secondsHeaderAt } from '../resets.ts';
import type { ProviderPlugin } from '../types.ts';
import { createGroqTranscriptionModel, groqTranscriptionModels, groqTranscriptionOptions } from './transcriptions.ts';

const groq: ProviderPlugin = {
  id: 'groq',
  name: 'Groq',
  header: 'X-Groq-Key',
  keyPatterns: [/gsk_[A-Za-z0-9]+/],
  baseURL: 'https://api.groq.com/openai/v1',
  keyUrl: 'https://console.groq.com/keys',
  // Preliminary: to be checked against the source page.
  tier: { tier: 'free with limits', source: 'https://console.groq.com/docs/rate-limits', checked: '2026-11-25' },
  priority: 10,
  models: [
    { id: 'llama-3.3-70b-versatile', capabilities: ['fast', 'tool-use', 'long-context'], contextWindow: 131072 },
    { id: 'llama-3.1-8b-instant', capabilities: ['fast', 'tool-use', 'long-context'], contextWindow: 131072 },
    { id: 'llama-4-scout-17b-16e-instruct', capabilities: ['fast', 'tool-use', 'long-context'], contextWindow: 131072, deprecated: true },
    { id: 'llama-4-maverick-17b-128e-instruct', capabilities: ['fast', 'tool-use', 'vision', 'long-context'], contextWindow: 131072, deprecated: true },
  ],
  authHeaders: bearerAuth,
  // @ai-sdk/groq's own option names; Groq does not return logprobs.
  providerOptions: ({ user, parallelToolCalls }) => (user === undefined && parallelToolCalls === undefined ? undefined : { user, parallelToolCalls }),
  // https://console.groq.com/docs/rate-limits: `-requests` is the daily request budget (RPD),
  // `-tokens` the per-minute token budget (TPM); resets are durations like `2m59.56s`.
  readQuota: quotaReader(openAIQuotaHeaders),
  // https://console.groq.com/docs/errors and /docs/rate-limits; the rows are in fixtures.ts.
  errorRules: [
    {
      name: 'daily request or token limit (RPD, TPD)',
      status: 429,
      body: /per day \((?:RPD|TPD)\)/,
      kind: 'rate_limited',
      // "Please try again in 9m38.016s" is when the day's budget allows the request again.
      retryAt: (answer, now) => retryHintAt(answer.body, now) ?? secondsHeaderAt(answer.headers, 'retry-after', now) ?? nextUtcMidnight(now),
    },
    { name: 'per-minute limit (RPM, TPM)', status: 429, kind: 'rate_limited' },
    { name: 'invalid API key', status: 401, kind: 'invalid_key' },
    { name: 'model not found', status: 404, kind: 'model_unavailable' },
    {
      // "`max_tokens` must be less than or equal to `32768`, the maximum value for `max_tokens` is less
      // than the `context_window` for this model": the model's output maximum, not its context window.
      name: 'output budget above the model maximum',
      status: 400,
      body: /`max_(?:completion_)?tokens` must be less than or equal to/,
      kind: 'output_budget',
    },
    { name: 'context length exceeded', status: 400, body: /context_length_exceeded|reduce the length/, kind: 'context_too_long' },
  ],
  // The SDK insists on a key at construction; every call's authHeaders replace it.
  createModel: async ({ modelId, baseURL, fetch }) => {
    const { createGroq } = await import('@ai-sdk/groq');
    return createGroq({ apiKey: 'per-request', baseURL, fetch }).languageModel(modelId);
  },
  transcriptionModels: groqTranscriptionModels,
  createTranscriptionModel: createGroqTranscriptionModel,
  transcriptionOptions: groqTranscriptionOptions,
};

export default groq;
