import { bearerAuth, openAICompatibleModel } from '../openai-compatible.ts';
import { quotaReader } from '../quota.ts';
import { secondsHeaderAt } from '../resets.ts';
import type { ListedModel, ModelListing, ProviderPlugin } from '../types.ts';
import { listingEntries } from '../listing-entries.ts';

/** Together's `type` of a listed model, as Freeway routes it: only chat and embedding models are ever called. */
function kindOfType(type: unknown): ListedModel['kind'] {
  if (type === 'chat') return 'chat';
  if (type === 'embedding') return 'embedding';
  return 'other';
}

/**
 * Together's model list is a bare JSON array (not OpenAI's `{data: [...]}`) whose entries say their `type`
 * (chat, language, code, image, embedding, moderation, rerank) and `context_length`.
 * Only `chat` models take chat calls (`language` and `code` are completion models). Together is paid only, so no listed model is free.
 */
const togetherListing: ModelListing = {
  source: 'https://docs.together.ai/reference/models',
  url: (baseURL) => `${baseURL}/models`,
  read(body) {
    // v1 answers a bare array; OpenAI's envelope is read too, should the answer come in it.
    const entries: unknown = Array.isArray(body) ? body : body !== null && typeof body === 'object' ? (body as { data?: unknown }).data : undefined;
    if (!Array.isArray(entries)) throw new Error('not a model list: neither an array nor a data array');
    const models: ListedModel[] = [];
    for (const entry of listingEntries<{ id: string; type?: unknown; context_length?: unknown }>(entries as unknown[], 'id')) {
      const { id, type, context_length: contextLength } = entry;
      const kind = kindOfType(type);
      const contextWindow = typeof contextLength === 'number' && Number.isInteger(contextLength) && contextLength > 0 ? contextLength : undefined;
      models.push({ id, kind, free: false, ...(contextWindow === undefined ? {} : { contextWindow }) });
    }
    return { models };
  },
};

const together: ProviderPlugin = {
  id: 'together',
  name: 'Together AI',
  header: 'X-Together-Key',
  keyPatterns: [/tgp_v1_[A-Za-z0-9_-]+/],
  baseURL: 'https://api.together.xyz/v1',
  keyUrl: 'https://api.together.ai/settings/api-keys',
  // Together ended its free tier and free models in July 2025 (https://support.together.ai/articles/1862638756-changes-to-free-tier-and-billing-july-2025).
  // Still so: "Together AI does not currently offer free trials. Access to the Together platform requires a minimum $5
  // credit purchase", and it is "fully prepaid".
  tier: { tier: 'paid only', source: 'https://docs.together.ai/docs/billing-credits', checked: '2026-11-27' },
  // Same page: "Add credits from your billing settings before making API calls": no key answers before a purchase.
  signUp: { cardRequired: true, source: 'https://docs.together.ai/docs/billing-credits', checked: '2026-11-27' },
  listing: togetherListing,
  priority: 90,
  // Not re-checked: the serverless catalog (https://docs.together.ai/docs/serverless-models) and
  // https://docs.together.ai/docs/deprecations could not be read on 2026-11-25 beyond their policy text. Together is
  // paid only, so aliases reach these models only with a paid key; its live list shows which ones the key can use.
  models: [
    { id: 'meta-llama/Llama-3.3-70B-Instruct-Turbo', capabilities: ['fast', 'tool-use', 'long-context'], contextWindow: 131072 },
    { id: 'meta-llama/Llama-3.1-8B-Instruct-Turbo', capabilities: ['fast', 'tool-use', 'long-context'], contextWindow: 131072 },
    { id: 'mistralai/Mixtral-8x22B-Instruct-v0.1', capabilities: ['reasoning', 'tool-use'], contextWindow: 65536 },
    { id: 'deepseek-ai/DeepSeek-R1', capabilities: ['reasoning', 'tool-use'], contextWindow: 16384 },
    { id: 'Qwen/Qwen3-32B', capabilities: ['reasoning', 'tool-use', 'long-context'], contextWindow: 131072 },
  ],
  authHeaders: bearerAuth,
  // https://support.together.ai/en/articles/8988956-rate-limits: x-ratelimit-remaining (requests)
  // and x-ratelimit-reset, the time until the request budget is full again.
  // https://docs.together.ai/docs/error-codes and /docs/rate-limits; the rows are in fixtures.ts.
  errorRules: [
    {
      name: 'above the dynamic request or token rate',
      status: 429,
      kind: 'rate_limited',
      retryAt: (answer, now) => secondsHeaderAt(answer.headers, 'x-ratelimit-reset', now),
    },
    { name: 'invalid API key', status: 401, kind: 'invalid_key' },
    // Together's 403 is input tokens + max_tokens over the model's context length.
    { name: 'context length exceeded (403)', status: 403, body: /tokens|context length/i, kind: 'context_too_long' },
    { name: 'model not available', status: 404, kind: 'model_unavailable' },
    // No credit left, or the monthly spending limit reached ("Credit limit exceeded", type credit_limit).
    { name: 'credit limit exceeded', status: 402, kind: 'no_credit' },
  ],
  readQuota: quotaReader({ remainingRequests: 'x-ratelimit-remaining', requestsReset: 'x-ratelimit-reset', resetFormat: 'duration' }),
  createModel: (options) => openAICompatibleModel('together', options, { supportsStructuredOutputs: true }),
};

export default together;
