import { bearerAuth, listedWithLimits, openAICompatibleModel, openAIModelListing, type OpenAIModelEntry } from '../openai-compatible.ts';
import { parseReset, quotaReader } from '../quota.ts';
import { nextUtcMidnight } from '../resets.ts';
import type { ListedModel, ProviderPlugin } from '../types.ts';
import { intelligenceIndex } from '../quality.ts';

/**
 * One entry of SambaNova's model list, which reports `context_length`, `max_completion_tokens` and `pricing`.
 * SambaNova has no free tier for new keys (see `tier`), so no listed model is free: an unknown one is
 * pinnable but never picked by an alias.
 */
function describeSambaNovaModel(entry: OpenAIModelEntry): ListedModel {
  return listedWithLimits(entry.id, false, { contextWindow: entry.context_length, maxOutputTokens: entry.max_completion_tokens });
}

const sambanova: ProviderPlugin = {
  id: 'sambanova',
  name: 'SambaNova',
  header: 'X-Sambanova-Key',
  keyPatterns: [],
  baseURL: 'https://api.sambanova.ai/v1',
  keyUrl: 'https://cloud.sambanova.ai/apis',
  // The rate-limits page still describes a free tier, but new keys get no free allowance: every call answers 402
  // PAYMENT_METHOD_REQUIRED (balance_units 0) until a payment method and credits are added (verified with real keys
  // over two days in mnfst/awesome-free-llm-apis#95, 2026-08-20; likewise juspay/neurolink's SambaNova guide, 2026-08-27).
  // Older keys' trial credit ends the same way. Re-checked 2026-11-27: no later report of a working free allowance
  // (mnfst/awesome-free-llm-apis#106, of 2026-08-24, asks to list SambaNova again from the rate-limits page alone and
  // was open when read; juspay/neurolink's guide still says "new accounts have no free allowance").
  tier: { tier: 'paid only', source: 'https://github.com/mnfst/awesome-free-llm-apis/issues/95', checked: '2026-11-27' },
  // Sign-up (Google or Microsoft account, then a profile step) and key creation take no card, but every call of a new
  // key answers 402 "A payment method is required. Add one at cloud.sambanova.ai/plans/billing" until one is added
  // (eight live requests over two days, quoted in mnfst/awesome-free-llm-apis#102 on 2026-08-20): a key that answers
  // needs a payment method on file.
  signUp: { cardRequired: true, source: 'https://github.com/mnfst/awesome-free-llm-apis/pull/102', checked: '2026-11-27' },
  listing: openAIModelListing('https://docs.sambanova.ai/docs/api-reference/models/get-environments-available-model-list-metadata', describeSambaNovaModel),
  priority: 40,
  // Checked 2026-11-25 against https://docs.sambanova.ai/docs/en/models/sambacloud-models (production models;
  // "128k tokens" read as 131,072, "192k" as 196,608).
  models: [
    { id: 'Meta-Llama-3.3-70B-Instruct', quality: intelligenceIndex(9.3, 'llama-3-3-instruct-70b'), capabilities: ['fast', 'tool-use', 'long-context'], contextWindow: 131072 },
    { id: 'gpt-oss-120b', quality: intelligenceIndex(24.1, 'gpt-oss-120b'), capabilities: ['fast', 'reasoning', 'tool-use', 'long-context'], contextWindow: 131072 },
    { id: 'DeepSeek-V3.1', quality: intelligenceIndex(21.4, 'deepseek-v3-1'), capabilities: ['reasoning', 'tool-use', 'long-context'], contextWindow: 131072 },
    { id: 'MiniMax-M2.7', quality: intelligenceIndex(38.9, 'minimax-m2-7'), capabilities: ['reasoning', 'tool-use', 'long-context'], contextWindow: 196608 },
    // No longer on the models page (nor in the /v1/models answer quoted in juspay/neurolink's guide, 2026-08-27);
    // the day SambaNova removed them was not found, so they carry no retirement date.
    { id: 'Meta-Llama-3.1-8B-Instruct', capabilities: ['fast', 'tool-use', 'long-context'], contextWindow: 131072, deprecated: true },
    { id: 'Qwen3-32B', capabilities: ['reasoning', 'tool-use'], contextWindow: 32768, deprecated: true },
  ],
  authHeaders: bearerAuth,
  // https://docs.sambanova.ai/docs/en/models/rate-limits ("Rate limit response headers"): a
  // per-minute set (x-ratelimit-*-requests) and a per-day set (x-ratelimit-*-requests-day).
  // https://docs.sambanova.ai/docs/en/api-reference/using-the-api/api-error-codes; the rows are in fixtures.ts.
  errorRules: [
    {
      name: 'request limit (per day when the day budget is spent, else per minute)',
      status: 429,
      kind: 'rate_limited',
      retryAt: (answer, now) =>
        answer.headers['x-ratelimit-remaining-requests-day'] === '0'
          ? parseReset(answer.headers['x-ratelimit-reset-requests-day'], 'duration', now) ?? nextUtcMidnight(now)
          : parseReset(answer.headers['x-ratelimit-reset-requests'], 'duration', now),
    },
    { name: 'invalid API key', status: 401, kind: 'invalid_key' },
    // PAYMENT_METHOD_REQUIRED: no free allowance, or the trial credit is spent.
    { name: 'payment method required', status: 402, kind: 'no_credit' },
    // 410 Gone: the model was deprecated or removed.
    { name: 'model no longer available', status: [404, 410], kind: 'model_unavailable' },
    { name: 'context length exceeded', status: 400, body: /context_length_exceeded|context length/i, kind: 'context_too_long' },
    { name: 'maintenance or queue full', status: [503, 504], kind: 'server' },
  ],
  readQuota: quotaReader([
    { remainingRequests: 'x-ratelimit-remaining-requests', requestsReset: 'x-ratelimit-reset-requests', resetFormat: 'duration' },
    { remainingRequests: 'x-ratelimit-remaining-requests-day', requestsReset: 'x-ratelimit-reset-requests-day', resetFormat: 'duration' },
  ]),
  createModel: (options) => openAICompatibleModel('sambanova', options),
};

export default sambanova;
