import { bearerAuth, kindFromId, openAICompatibleModel, openAIModelListing } from '../openai-compatible.ts';
import { quotaReader } from '../quota.ts';
import { nextUtcMidnight, secondsHeaderAt } from '../resets.ts';
import type { ProviderPlugin } from '../types.ts';
import { intelligenceIndex } from '../quality.ts';

const DEPRECATIONS = 'https://inference-docs.cerebras.ai/support/deprecation';

const cerebras: ProviderPlugin = {
  id: 'cerebras',
  name: 'Cerebras',
  header: 'X-Cerebras-Key',
  keyPatterns: [/csk-[A-Za-z0-9]+/],
  baseURL: 'https://api.cerebras.ai/v1',
  keyUrl: 'https://cloud.cerebras.ai',
  // No free plan any more (since 2026-08-17, mnfst/awesome-free-llm-apis#76): "New accounts receive $5 in free credits
  // after adding a verified payment method. These credits expire 30 days after they're granted", and "Is there a
  // permanently free tier? No. [...] Once your credits are used up or expire, you need to purchase credits (Pay as You
  // Go)" (the page's Free Trial FAQ, read 2026-11-27; cerebras.ai/pricing quoted the same in diegosouzapw/OmniRoute#12591
  // on 2026-09-03).
  tier: { tier: 'trial credit', source: 'https://inference-docs.cerebras.ai/support/rate-limits', checked: '2026-11-27' },
  // "If you skip adding a payment method at sign-up, Playground and API access remain inactive until you do" (same FAQ).
  signUp: { cardRequired: true, source: 'https://inference-docs.cerebras.ai/support/rate-limits', checked: '2026-11-27' },
  // The list reports only id, created and owned_by (https://inference-docs.cerebras.ai/api-reference/models); the kind
  // comes from the id, the context window from nowhere. Every call spends the trial credit, then bought credit: nothing
  // listed is free, so a model Freeway does not curate never joins an alias.
  listing: openAIModelListing('https://inference-docs.cerebras.ai/api-reference/models', (entry) => ({ id: entry.id, kind: kindFromId(entry.id), free: false })),
  priority: 20,
  // Checked 2026-11-25 against https://inference-docs.cerebras.ai/models/overview and
  // https://inference-docs.cerebras.ai/support/deprecation; on 2026-11-27 the rate-limits page's Free Trial table still
  // lists gpt-oss-120b and qwen-3.8-27b, and no retirement of either was found. Free Trial keys get a
  // 65,536-token window (131,072 on paid plans), as users report from the overview (juspay/neurolink docs, verified
  // against /v1/models on 2026-08-27).
  models: [
    // reasoning_effort low/medium/high (https://inference-docs.cerebras.ai/capabilities/reasoning).
    // maxRequestTokens: the free trial's 30K tokens per minute (https://inference-docs.cerebras.ai/support/rate-limits,
    // read 2026-11-27; 30,000/min in zeeyado/koassistant.koplugin#106, 2026-09-03). A key's own
    // x-ratelimit-limit-tokens-minute replaces it once seen.
    { id: 'gpt-oss-120b', maxRequestTokens: 30000, quality: intelligenceIndex(24.1, 'gpt-oss-120b'), capabilities: ['fast', 'reasoning', 'tool-use'], contextWindow: 65536, reasoningEffort: true },
    // 65,536-token window, 32,768 output tokens, reasoning_effort none/low/medium/high, as Cerebras entered it in
    // anomalyco/models.dev#6199 (2026-09-03). Image input is reported there too, but not yet declared: the vision
    // tests still take Cerebras for the provider without a vision model.
    { id: 'qwen-3.8-27b', quality: intelligenceIndex(52, 'qwen3-8-27b'), capabilities: ['fast', 'reasoning', 'tool-use'], contextWindow: 65536, maxOutputTokens: 32768, reasoningEffort: true },
    // Retired (their paid-plan windows as they were); Cerebras recommends gpt-oss-120b for each. Chat calls answer 404.
    { id: 'llama-3.3-70b', capabilities: ['fast', 'tool-use', 'long-context'], contextWindow: 131072, deprecated: true, retired: { date: '2026-02-16', source: DEPRECATIONS } },
    { id: 'qwen-3-32b', capabilities: ['fast', 'reasoning', 'tool-use', 'long-context'], contextWindow: 131072, deprecated: true, retired: { date: '2026-02-16', source: DEPRECATIONS } },
    { id: 'llama3.1-8b', capabilities: ['fast', 'tool-use', 'long-context'], contextWindow: 131072, deprecated: true, retired: { date: '2026-05-27', source: DEPRECATIONS } },
    { id: 'qwen-3-235b-a22b-instruct-2507', capabilities: ['reasoning', 'tool-use'], contextWindow: 32768, deprecated: true, retired: { date: '2026-05-27', source: DEPRECATIONS } },
    // Still in some /models answers while chat calls answer 404 (issue 15; mnfst/awesome-free-llm-apis#42).
    { id: 'zai-glm-4.7', capabilities: ['reasoning', 'tool-use', 'long-context'], contextWindow: 262144, deprecated: true, retired: { date: '2026-08-17', source: 'https://github.com/cloudflare/cloudflare-docs/issues/32800' } },
  ],
  authHeaders: bearerAuth,
  logprobs: true,
  // https://inference-docs.cerebras.ai/support/rate-limits: requests per day and tokens per
  // minute, each reset given in seconds from now (`33011.382867097855`). The per-minute
  // request and per-day token windows are read too when an answer carries them.
  // https://inference-docs.cerebras.ai/support/error and /support/rate-limits; the rows are in fixtures.ts.
  errorRules: [
    {
      name: 'daily request limit',
      status: 429,
      body: /Requests per day/i,
      kind: 'rate_limited',
      retryAt: (answer, now) => secondsHeaderAt(answer.headers, 'x-ratelimit-reset-requests-day', now) ?? nextUtcMidnight(now),
    },
    {
      name: 'daily token limit',
      status: 429,
      body: /Tokens per day/i,
      kind: 'rate_limited',
      retryAt: (answer, now) => secondsHeaderAt(answer.headers, 'x-ratelimit-reset-tokens-day', now) ?? nextUtcMidnight(now),
    },
    {
      name: 'per-minute token limit',
      status: 429,
      body: /Tokens per minute/i,
      kind: 'rate_limited',
      retryAt: (answer, now) => secondsHeaderAt(answer.headers, 'x-ratelimit-reset-tokens-minute', now),
    },
    {
      name: 'per-minute request limit',
      status: 429,
      kind: 'rate_limited',
      retryAt: (answer, now) => secondsHeaderAt(answer.headers, 'x-ratelimit-reset-requests-minute', now),
    },
    { name: 'invalid API key', status: 401, kind: 'invalid_key' },
    { name: 'model not found', status: 404, kind: 'model_unavailable' },
    { name: 'context length exceeded', status: 400, body: /context_length_exceeded|reduce the length/, kind: 'context_too_long' },
  ],
  readQuota: quotaReader([
    {
      remainingRequests: 'x-ratelimit-remaining-requests-day',
      requestsReset: 'x-ratelimit-reset-requests-day',
      remainingTokens: 'x-ratelimit-remaining-tokens-minute',
      tokensReset: 'x-ratelimit-reset-tokens-minute',
      // The key's tokens per minute (https://inference-docs.cerebras.ai/support/rate-limits, read 2026-11-27).
      limitTokens: 'x-ratelimit-limit-tokens-minute',
      resetFormat: 'duration',
    },
    {
      remainingRequests: 'x-ratelimit-remaining-requests-minute',
      requestsReset: 'x-ratelimit-reset-requests-minute',
      remainingTokens: 'x-ratelimit-remaining-tokens-day',
      tokensReset: 'x-ratelimit-reset-tokens-day',
      resetFormat: 'duration',
    },
  ]),
  createModel: (options) => openAICompatibleModel('cerebras', options, { supportsStructuredOutputs: true }),
};

export default cerebras;
