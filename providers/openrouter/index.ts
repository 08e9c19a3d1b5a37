import { bearerAuth, openAICompatibleModel, openAIModelListing, openRouterStyleModel } from '../openai-compatible.ts';
import { quotaReader } from '../quota.ts';
import { nextUtcMidnight } from '../resets.ts';
import type { ProviderPlugin, UpstreamErrorAnswer } from '../types.ts';
import { intelligenceIndex } from '../quality.ts';

/** The answer a 402 says the balance still covers. */
const affordable = /can only afford (\d{1,9})\b/;

const resetInBody = /"X-RateLimit-Reset":\s*"?(\d+)/i;

/** X-RateLimit-Reset (epoch ms), from the answer's headers or, where OpenRouter copies them, error.metadata.headers. */
function rateLimitReset(answer: UpstreamErrorAnswer): number | undefined {
  const raw = answer.headers['x-ratelimit-reset'] ?? resetInBody.exec(answer.body)?.[1];
  const at = raw === undefined ? Number.NaN : Number(raw);
  return Number.isFinite(at) && at > 0 ? at : undefined;
}

const openrouter: ProviderPlugin = {
  id: 'openrouter',
  name: 'OpenRouter',
  header: 'X-Openrouter-Key',
  keyPatterns: [/sk-or-[A-Za-z0-9_-]+/],
  baseURL: 'https://openrouter.ai/api/v1',
  keyUrl: 'https://openrouter.ai/settings/keys',
  // `:free` models cost nothing: 20 requests a minute, 50 a day (1,000 a day once the account has bought
  // $10 of credits). Paid models need credits.
  tier: { tier: 'free with limits', source: 'https://openrouter.ai/docs/api-reference/limits', checked: '2026-11-27' },
  // "card_required: no (optional one-time $10 top-up unlocks 1,000 req/day)", read from the limits page above
  // (cuihuan/awesome-ai-gateway, free_tiers.json of 2026-08-31).
  signUp: { cardRequired: false, source: 'https://github.com/cuihuan/awesome-ai-gateway/blob/9cd5f1603327ea78f8562ab60939bae78eb3faa6/data/free_tiers.json', checked: '2026-11-27' },
  listing: openAIModelListing('https://openrouter.ai/docs/api-reference/models/get-models', openRouterStyleModel),
  // The list answers without a valid key; GET /key answers 401 to a wrong one and costs nothing.
  keyCheck: { source: 'https://openrouter.ai/docs/api-reference/api-keys/get-current-key', url: (baseURL) => `${baseURL}/key` },
  priority: 60,
  // Only `:free` variants, which OpenRouter delists now and then ("No endpoints found for <model>"; the key's live
  // list then lacks them). Checked 2026-11-25 against https://openrouter.ai/models?q=free as public readings of
  // GET /api/v1/models quote it: nemotron-3-ultra, laguna-s-2.1, laguna-xs-2.1 and north-mini-code zero-priced on
  // 2026-08-20 (with the limits below), gemma-4-31b-it still listed on 2026-09-08 (orbi-build/orbi#560, 16 `:free`
  // models then), the others in anomalyco/models.dev's OpenRouter catalog of 2026-07-02; none has a public
  // "No endpoints found" report since. No reading after September was found: the live list has the last word.
  models: [
    { id: 'nvidia/nemotron-3-ultra-550b-a55b:free', quality: intelligenceIndex(38.3, 'nvidia-nemotron-3-ultra-550b-a55b'), capabilities: ['reasoning', 'tool-use', 'long-context'], contextWindow: 1000000, maxOutputTokens: 65536 },
    { id: 'nvidia/nemotron-3-super-120b-a12b:free', quality: intelligenceIndex(25.7, 'nvidia-nemotron-3-super-120b-a12b'), capabilities: ['reasoning', 'tool-use', 'long-context'], contextWindow: 1048576 },
    // 262,144 tokens in, 32,768 out; text, image and video in (anomalyco/models.dev#1387).
    { id: 'google/gemma-4-31b-it:free', quality: intelligenceIndex(29.7, 'gemma-4-31b'), capabilities: ['vision', 'tool-use', 'long-context'], contextWindow: 262144, maxOutputTokens: 32768 },
    { id: 'google/gemma-4-26b-a4b-it:free', quality: intelligenceIndex(26.1, 'gemma-4-26b-a4b'), capabilities: ['vision', 'tool-use', 'long-context'], contextWindow: 262144, maxOutputTokens: 32768 },
    { id: 'poolside/laguna-m.1:free', capabilities: ['tool-use', 'reasoning', 'long-context'], contextWindow: 262144, maxOutputTokens: 32768 },
    { id: 'poolside/laguna-s-2.1:free', capabilities: ['tool-use', 'reasoning', 'long-context'], contextWindow: 262144, maxOutputTokens: 32768 },
    { id: 'poolside/laguna-xs-2.1:free', capabilities: ['tool-use', 'fast', 'long-context'], contextWindow: 262144, maxOutputTokens: 32768 },
    // 256K in, 64K out (Cohere's model page, docs.cohere.com/docs/north-mini-code-1.0; the listing says 256,000 / 64,000).
    { id: 'cohere/north-mini-code:free', quality: intelligenceIndex(20.2, 'north-mini-code'), capabilities: ['tool-use', 'reasoning', 'long-context'], contextWindow: 256000, maxOutputTokens: 64000 },
    { id: 'nvidia/nemotron-3-nano-30b-a3b:free', quality: intelligenceIndex(7.2, 'nvidia-nemotron-3-nano-30b-a3b'), capabilities: ['fast', 'tool-use', 'long-context'], contextWindow: 262144 },
    { id: 'qwen/qwen3-next-80b-a3b-instruct:free', quality: intelligenceIndex(13.8, 'qwen3-next-80b-a3b-instruct'), capabilities: ['tool-use', 'long-context'], contextWindow: 262144 },
  ],
  authHeaders: bearerAuth,
  logprobs: true,
  // https://openrouter.ai/docs/api-reference/limits: X-RateLimit-Remaining (requests) and
  // X-RateLimit-Reset, the moment of the reset in epoch milliseconds.
  // https://openrouter.ai/docs/api-reference/errors and /limits; the rows are in fixtures.ts.
  errorRules: [
    {
      name: 'daily free-model limit',
      status: 429,
      body: /free-models-per-day/,
      kind: 'rate_limited',
      // The free-model counter resets at 00:00 UTC.
      retryAt: (answer, now) => rateLimitReset(answer) ?? nextUtcMidnight(now),
    },
    { name: 'per-minute free-model limit', status: 429, body: /free-models-per-min/, kind: 'rate_limited', retryAt: (answer) => rateLimitReset(answer) },
    { name: 'the upstream provider is rate-limited', status: 429, kind: 'rate_limited' },
    { name: 'invalid API key', status: 401, kind: 'invalid_key' },
    // "This request requires more credits, or fewer max_tokens. You requested up to 64000 tokens, but can only
    // afford 2666": the balance covers a smaller answer, so the budget is lowered rather than the key benched.
    {
      name: 'credits cover fewer max_tokens',
      status: 402,
      body: /requires more credits, or fewer max_tokens/,
      kind: 'output_budget',
      maxOutputTokens: (answer) => {
        const afford = affordable.exec(answer.body)?.[1];
        return afford === undefined || Number(afford) <= 0 ? undefined : Number(afford);
      },
    },
    // "Your account or API key has insufficient credits": a paid model, or a key with a credit limit, spent.
    { name: 'insufficient credits', status: 402, kind: 'no_credit' },
    // Input flagged by moderation: the request, which every provider would see the same way.
    { name: 'input flagged by moderation', status: 403, body: /moderation|flagged/i, kind: 'request' },
    // 404s about this request on this model, not about the model: "No endpoints found that support tool use"
    // (or image input, or the tool_choice value) and "No endpoints found matching your data policy (...)", which
    // the key's privacy settings decide per model. The model serves other requests and other keys, so nothing
    // is quarantined and the key stays healthy: the plugin kinds have no name for "this model cannot take this
    // request", so these take output_budget's path without a stated maximum: the next model, or for a pinned
    // model a 400 with OpenRouter's words (which name the setting to change).
    { name: 'no endpoint supports a feature of the request', status: 404, body: /No endpoints (?:found|available) that support/i, kind: 'output_budget' },
    { name: 'no endpoint matches the key\'s data policy', status: 404, body: /No endpoints (?:found|available) matching your (?:guardrail restrictions and )?data policy/i, kind: 'output_budget' },
    // "No endpoints found for <model>.": delisted, or its free period ended.
    { name: 'no endpoints for the model', status: 404, kind: 'model_unavailable' },
    { name: 'context length exceeded', status: 400, body: /maximum context length/i, kind: 'context_too_long' },
  ],
  readQuota: quotaReader({ remainingRequests: 'x-ratelimit-remaining', requestsReset: 'x-ratelimit-reset', resetFormat: 'epoch-ms' }),
  createModel: (options) => openAICompatibleModel('openrouter', options, { supportsStructuredOutputs: true }),
};

export default openrouter;
