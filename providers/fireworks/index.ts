import { bearerAuth, kindFromId, openAIModelListing, openAICompatibleModel, type OpenAIModelEntry, tokenCount, LONG_CONTEXT_TOKENS } from '../openai-compatible.ts';
import type { Capability, ListedModel, ProviderPlugin } from '../types.ts';
import { intelligenceIndex } from '../quality.ts';

/**
 * One entry of Fireworks' OpenAI-format list: `kind` (HF_BASE_MODEL, CUSTOM_MODEL,
 * EMBEDDING_MODEL, ...), `supports_chat`, `supports_tools`, `supports_image_input`,
 * `context_length`. Embedding and reranker entries say `supports_chat: true` too, so
 * the kind decides first. Every call spends account credit: nothing listed is free.
 */
function describe(entry: OpenAIModelEntry): ListedModel {
  const byId = kindFromId(entry.id);
  const kind: ListedModel['kind'] =
    typeof entry.kind === 'string' && entry.kind.startsWith('EMBEDDING')
      ? byId === 'other'
        ? 'other'
        : 'embedding'
      : entry.supports_chat === true
        ? byId
        : 'other';
  const window = entry.context_length;
  const contextWindow = tokenCount(window);
  const capabilities: Capability[] = [];
  if (entry.supports_tools === true) capabilities.push('tool-use');
  if (entry.supports_image_input === true) capabilities.push('vision');
  if (contextWindow !== undefined && contextWindow >= LONG_CONTEXT_TOKENS) capabilities.push('long-context');
  return { id: entry.id, kind, free: false, ...(contextWindow === undefined ? {} : { contextWindow }), ...(capabilities.length > 0 ? { capabilities } : {}) };
}

const fireworks: ProviderPlugin = {
  id: 'fireworks',
  name: 'Fireworks AI',
  header: 'X-Fireworks-Key',
  keyPatterns: [/fw_[A-Za-z0-9]+/],
  baseURL: 'https://api.fireworks.ai/inference/v1',
  keyUrl: 'https://app.fireworks.ai/settings/users/api-keys',
  // Prepaid credits: "Prepaid credits are used first for all usage" (the page's address still
  // names the $1 starting credit of a new account); an account without credit is suspended
  // (412, see fixtures.ts). Without a payment method it is held to 10 requests per minute
  // (https://docs.fireworks.ai/guides/quotas_usage/account-quotas).
  // New accounts still get starter credit (ripienaar/free-for-dev#4616, 2026-07-19: "Free starter credits for new
  // accounts; paid serverless after"); no later report says otherwise.
  tier: { tier: 'trial credit', source: 'https://docs.fireworks.ai/faq-new/billing-pricing/what-happens-when-i-finish-my-1-dollar-credit', checked: '2026-11-27' },
  // The account quotas table has a row for "No payment method" (10 RPM): a key works without a card.
  signUp: { cardRequired: false, source: 'https://docs.fireworks.ai/guides/quotas_usage/account-quotas', checked: '2026-11-27' },
  // The list can still name models whose serverless endpoint is gone (404 on chat,
  // https://github.com/Kiln-AI/Kiln/pull/1790); the quarantine takes care of those.
  listing: openAIModelListing('https://docs.fireworks.ai/tools-sdks/openai-compatibility', describe),
  priority: 100,
  // Checked on 2026-11-25 against Fireworks' serverless decommission notices as users quote them
  // (the changelog, https://docs.fireworks.ai/updates/changelog, and the e-mails in the threads
  // cited below). The serverless catalog turns over every few weeks: the listing is the authority.
  models: [
    // Reasoning effort low | medium | high; 131072 tokens (https://fireworks.ai/models/fireworks/gpt-oss-120b).
    { id: 'accounts/fireworks/models/gpt-oss-120b', quality: intelligenceIndex(24.1, 'gpt-oss-120b'), capabilities: ['reasoning', 'tool-use', 'long-context'], contextWindow: 131072, reasoningEffort: true },
    // On serverless since 2026-08-28; GET /models reports context_length 1048576
    // (https://github.com/anomalyco/models.dev/blob/dev/providers/fireworks-ai/models/accounts/fireworks/models/glm-5p3.toml).
    { id: 'accounts/fireworks/models/glm-5p3', quality: intelligenceIndex(59.5, 'glm-5-3'), capabilities: ['reasoning', 'tool-use', 'long-context'], contextWindow: 1048576 },
    {
      id: 'accounts/fireworks/models/llama-v3p3-70b-instruct',
      capabilities: ['fast', 'tool-use', 'long-context'],
      contextWindow: 131072,
      deprecated: true,
      // "No longer served" on 2026-06-26; the decommission date itself is not quoted.
      retired: { date: '2026-06-26', source: 'https://github.com/decolua/9router/issues/2139' },
    },
    {
      id: 'accounts/fireworks/models/deepseek-r1',
      capabilities: ['reasoning', 'tool-use'],
      contextWindow: 16384,
      deprecated: true,
      retired: { date: '2025-10-08', source: 'https://github.com/anotherai-dev/anotherai/issues/285' },
    },
    // Neither is on the serverless pricing page any more (https://docs.fireworks.ai/serverless/pricing);
    // no public notice gives their decommission date.
    { id: 'accounts/fireworks/models/firefunction-v2', capabilities: ['fast', 'tool-use'], contextWindow: 32768, deprecated: true },
    { id: 'accounts/fireworks/models/qwen3-32b', capabilities: ['reasoning', 'tool-use', 'long-context'], contextWindow: 131072, deprecated: true },
  ],
  authHeaders: bearerAuth,
  // https://docs.fireworks.ai/serverless/rate-limits (429 and 503); the rows are in fixtures.ts.
  errorRules: [
    { name: 'rate limited', status: 429, kind: 'rate_limited' },
    { name: 'invalid API key', status: 401, kind: 'invalid_key' },
    { name: 'model not found or not servable', status: 404, kind: 'model_unavailable' },
    // Fireworks suspends an account that ran out of credit or hit its spending limit.
    { name: 'account suspended (no credit, spending limit or unpaid invoice)', status: [402, 412], body: /suspended|insufficient|credit/i, kind: 'no_credit' },
    { name: 'context length exceeded', status: 400, body: /prompt is too long|maximum context length/i, kind: 'context_too_long' },
  ],
  logprobs: true,
  createModel: (options) => openAICompatibleModel('fireworks', options, { supportsStructuredOutputs: true }),
};

export default fireworks;
