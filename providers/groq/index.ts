import { bearerAuth, listedWithLimits, openAIModelListing, type OpenAIModelEntry } from '../openai-compatible.ts';
import { openAIQuotaHeaders, quotaReader } from '../quota.ts';
import { nextUtcMidnight, retryHintAt, secondsHeaderAt } from '../resets.ts';
import type { ListedModel, ProviderPlugin } from '../types.ts';
import { createGroqTranscriptionModel, groqTranscriptionModels, groqTranscriptionOptions } from './transcriptions.ts';
import { intelligenceIndex } from '../quality.ts';

/** Groq's notice of 2026-08-16 for free and developer keys, as quoted in ITSpecialist111/ai_automation_suggester#187. */
const DECOMMISSIONED_AUGUST = 'https://console.groq.com/docs/deprecations#august-16-2026-llama318binstant-and-llama3370bversatile';

/**
 * One entry of Groq's model list (https://console.groq.com/docs/api-reference#models-list), which reports
 * `active`, `context_window` and `max_completion_tokens` (the answer quoted in anomalyco/models.dev#1276).
 * The free plan serves every listed model (https://console.groq.com/docs/rate-limits lists each one), so each
 * is free; speech, transcription and guard models are told apart by id, as the listing does not say.
 */
function describeGroqModel(entry: OpenAIModelEntry): ListedModel | undefined {
  if (entry.active === false) return undefined;
  return listedWithLimits(entry.id, true, { contextWindow: entry.context_window, maxOutputTokens: entry.max_completion_tokens });
}

const groq: ProviderPlugin = {
  id: 'groq',
  name: 'Groq',
  header: 'X-Groq-Key',
  keyPatterns: [/gsk_[A-Za-z0-9]+/],
  baseURL: 'https://api.groq.com/openai/v1',
  keyUrl: 'https://console.groq.com/keys',
  // The free plan serves every model on the models page, within per-model rate limits (still so in the Free Plan
  // rows of mnfst/awesome-free-llm-apis's data.json of 2026-10-05, read 2026-11-27).
  tier: { tier: 'free with limits', source: 'https://console.groq.com/docs/rate-limits', checked: '2026-11-27' },
  // "Free tier, no credit card" (a list that takes only free tiers without a card; likewise cuihuan/awesome-ai-gateway's
  // free_tiers.json of 2026-08-31: "free plan works without one").
  signUp: { cardRequired: false, source: 'https://github.com/mnfst/awesome-free-llm-apis/blob/010fa9a482bca94e7061a947005ca78b112d75e6/data.json', checked: '2026-11-27' },
  listing: openAIModelListing('https://console.groq.com/docs/api-reference#models-list', describeGroqModel),
  priority: 10,
  // Checked 2026-11-25 against https://console.groq.com/docs/models and https://console.groq.com/docs/deprecations
  // (quoted in the threads cited on each retired model). Current models first: alias order follows this list.
  models: [
    // 131,072-token window and 65,536 max completion tokens per the models page; reasoning_effort low/medium/high
    // per https://console.groq.com/docs/reasoning (DataTalksClub/llm-zoomcamp#183: "only accepts low, medium, or high").
    // maxRequestTokens: the free plan's 8K tokens per minute (https://console.groq.com/docs/rate-limits, read
    // 2026-11-27; 8000 in the 413s quoted in autohandai/code-cli#302, 2026-06-29): prompt and max_tokens must fit.
    { id: 'openai/gpt-oss-120b', maxRequestTokens: 8000, quality: intelligenceIndex(24.1, 'gpt-oss-120b'), capabilities: ['fast', 'reasoning', 'tool-use', 'long-context'], contextWindow: 131072, maxOutputTokens: 65536, reasoningEffort: true },
    { id: 'openai/gpt-oss-20b', maxRequestTokens: 8000, quality: intelligenceIndex(15.2, 'gpt-oss-20b'), capabilities: ['fast', 'reasoning', 'tool-use', 'long-context'], contextWindow: 131072, maxOutputTokens: 65536, reasoningEffort: true },
    // Decommissioned for free and developer keys on 2026-08-16; they answer 404 model_not_found since.
    { id: 'llama-3.3-70b-versatile', capabilities: ['fast', 'tool-use', 'long-context'], contextWindow: 131072, deprecated: true, retired: { date: '2026-08-16', source: DECOMMISSIONED_AUGUST } },
    { id: 'llama-3.1-8b-instant', capabilities: ['fast', 'tool-use', 'long-context'], contextWindow: 131072, deprecated: true, retired: { date: '2026-08-16', source: DECOMMISSIONED_AUGUST } },
    {
      id: 'meta-llama/llama-4-scout-17b-16e-instruct',
      capabilities: ['fast', 'tool-use', 'vision', 'long-context'],
      contextWindow: 131072,
      deprecated: true,
      retired: { date: '2026-07-17', source: 'https://console.groq.com/docs/deprecations#july-17-2026-qwenqwen332b-and-metallamallama4scout17b16einstruct' },
    },
    {
      id: 'meta-llama/llama-4-maverick-17b-128e-instruct',
      capabilities: ['fast', 'tool-use', 'vision', 'long-context'],
      contextWindow: 131072,
      deprecated: true,
      retired: { date: '2026-03-09', source: 'https://console.groq.com/docs/deprecations#march-9-2026-metallamallama4maverick17b128einstruct' },
    },
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
    {
      // "Request too large for model `x` ... on tokens per minute (TPM): Limit 8000, Requested 34041": this
      // request can never fit the key's per-minute budget for the model. No wait helps and the key is fine:
      // the limit is learnt for the key and model, and the next candidate is tried.
      name: 'request larger than the per-minute token budget (413)',
      status: 413,
      kind: 'request_too_large',
    },
    { name: 'invalid API key', status: 401, kind: 'invalid_key' },
    { name: 'model not found', status: 404, kind: 'model_unavailable' },
    // "The model `x` has been decommissioned and is no longer supported" (code model_decommissioned).
    { name: 'model decommissioned', status: 400, body: /model_decommissioned|has been decommissioned/, kind: 'model_unavailable' },
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
