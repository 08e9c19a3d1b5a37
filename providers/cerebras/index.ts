import { bearerAuth, openAICompatibleModel } from '../openai-compatible.ts';
import { quotaReader } from '../quota.ts';
import { nextUtcMidnight, secondsHeaderAt } from '../resets.ts';
import type { ProviderPlugin } from '../types.ts';

const cerebras: ProviderPlugin = {
  id: 'cerebras',
  name: 'Cerebras',
  header: 'X-Cerebras-Key',
  keyPatterns: [/csk-[A-Za-z0-9]+/],
  baseURL: 'https://api.cerebras.ai/v1',
  keyUrl: 'https://cloud.cerebras.ai',
  // Preliminary: to be checked against the source page.
  tier: { tier: 'free with limits', source: 'https://inference-docs.cerebras.ai/support/rate-limits', checked: '2026-11-25' },
  priority: 20,
  models: [
    { id: 'llama-3.3-70b', capabilities: ['fast', 'tool-use', 'long-context'], contextWindow: 131072 },
    { id: 'llama-3.1-8b', capabilities: ['fast', 'tool-use', 'long-context'], contextWindow: 131072 },
    { id: 'qwen3-32b', capabilities: ['fast', 'reasoning', 'tool-use', 'long-context'], contextWindow: 131072 },
    { id: 'qwen3-235b', capabilities: ['reasoning', 'tool-use'], contextWindow: 32768 },
    { id: 'gpt-oss-120b', capabilities: ['fast', 'reasoning', 'tool-use', 'long-context'], contextWindow: 131072, reasoningEffort: true },
    { id: 'zai-glm-4.7', capabilities: ['reasoning', 'tool-use', 'long-context'], contextWindow: 262144, deprecated: true },
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
