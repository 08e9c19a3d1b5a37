import { bearerAuth, openAICompatibleModel } from '../openai-compatible.ts';
import { quotaReader } from '../quota.ts';
import { nextUtcMidnight } from '../resets.ts';
import type { UpstreamErrorAnswer } from '../types.ts';
import type { ProviderPlugin } from '../types.ts';

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
  // Preliminary: to be checked against the source page.
  tier: { tier: 'free with limits', source: 'https://openrouter.ai/docs/api-reference/limits', checked: '2026-11-25' },
  priority: 60,
  models: [
    { id: 'nvidia/nemotron-3-ultra-550b-a55b:free', capabilities: ['reasoning', 'tool-use', 'long-context'], contextWindow: 1048576 },
    { id: 'nvidia/nemotron-3-super-120b-a12b:free', capabilities: ['reasoning', 'tool-use', 'long-context'], contextWindow: 1048576 },
    { id: 'google/gemma-4-31b-it:free', capabilities: ['vision', 'tool-use', 'long-context'], contextWindow: 262144 },
    { id: 'google/gemma-4-26b-a4b-it:free', capabilities: ['vision', 'tool-use', 'long-context'], contextWindow: 262144 },
    { id: 'poolside/laguna-m.1:free', capabilities: ['tool-use', 'reasoning', 'long-context'], contextWindow: 262144 },
    { id: 'poolside/laguna-xs-2.1:free', capabilities: ['tool-use', 'fast', 'long-context'], contextWindow: 262144 },
    { id: 'cohere/north-mini-code:free', capabilities: ['tool-use', 'long-context'], contextWindow: 262144 },
    { id: 'nvidia/nemotron-3-nano-30b-a3b:free', capabilities: ['fast', 'tool-use', 'long-context'], contextWindow: 262144 },
    { id: 'qwen/qwen3-next-80b-a3b-instruct:free', capabilities: ['tool-use', 'long-context'], contextWindow: 262144 },
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
    // Input flagged by moderation: the request, which every provider would see the same way.
    { name: 'input flagged by moderation', status: 403, body: /moderation|flagged/i, kind: 'request' },
    { name: 'no endpoints for the model', status: 404, kind: 'model_unavailable' },
    { name: 'context length exceeded', status: 400, body: /maximum context length/i, kind: 'context_too_long' },
  ],
  readQuota: quotaReader({ remainingRequests: 'x-ratelimit-remaining', requestsReset: 'x-ratelimit-reset', resetFormat: 'epoch-ms' }),
  createModel: (options) => openAICompatibleModel('openrouter', options, { supportsStructuredOutputs: true }),
};

export default openrouter;
