import { bearerAuth, kindFromId, openAIModelListing, openAICompatibleModel, type OpenAIModelEntry, openAICompatibleEmbeddingModel, tokenCount, LONG_CONTEXT_TOKENS } from '../openai-compatible.ts';
import type { Capability, ListedModel, ProviderPlugin } from '../types.ts';
import { deepinfraEmbeddingModels } from './embeddings.ts';
import { intelligenceIndex } from '../quality.ts';

/** `metadata.tags` of a DeepInfra list entry: "chat", "embed", "stt", "tts", "vision", "reasoning", ... */
function tagsOf(entry: OpenAIModelEntry): readonly string[] {
  const metadata = entry.metadata;
  if (metadata === null || typeof metadata !== 'object') return [];
  const tags = (metadata as { tags?: unknown }).tags;
  return Array.isArray(tags) ? tags.filter((tag): tag is string => typeof tag === 'string') : [];
}

const otherTags = new Set(['tts', 'text-to-image', 'image', 'text-to-video', 'video']);

/**
 * DeepInfra's OpenAI-format list carries a `metadata` object (description,
 * context_length, max_tokens, pricing, tags), or none for models it lists bare.
 * Every call is paid: nothing listed is free.
 */
function describe(entry: OpenAIModelEntry): ListedModel {
  const tags = tagsOf(entry);
  const byId = kindFromId(entry.id);
  let kind: ListedModel['kind'] = byId;
  if (tags.includes('embed') || tags.includes('embeddings')) kind = byId === 'other' ? 'other' : 'embedding';
  else if (tags.includes('stt')) kind = 'transcription';
  else if (tags.some((tag) => otherTags.has(tag))) kind = 'other';
  const metadata = entry.metadata !== null && typeof entry.metadata === 'object' ? (entry.metadata as { context_length?: unknown }) : {};
  const window = metadata.context_length;
  const contextWindow = tokenCount(window);
  const capabilities: Capability[] = [];
  if (tags.includes('reasoning')) capabilities.push('reasoning');
  if (tags.includes('vision') || tags.includes('vlm')) capabilities.push('vision');
  if (contextWindow !== undefined && contextWindow >= LONG_CONTEXT_TOKENS) capabilities.push('long-context');
  return { id: entry.id, kind, free: false, ...(contextWindow === undefined ? {} : { contextWindow }), ...(capabilities.length > 0 ? { capabilities } : {}) };
}

const deepinfra: ProviderPlugin = {
  id: 'deepinfra',
  name: 'DeepInfra',
  header: 'X-Deepinfra-Key',
  keyPatterns: [],
  baseURL: 'https://api.deepinfra.com/v1/openai',
  keyUrl: 'https://deepinfra.com/dash/api_keys',
  // "You have to add a card or pre-pay or you won't be able to use our services": no free tier
  // (as quoted on 2026-09-28 in https://github.com/juspay/neurolink/blob/master/docs/getting-started/providers/deepinfra.md).
  tier: { tier: 'paid only', source: 'https://deepinfra.com/pricing', checked: '2026-11-27' },
  // Same quote: no call succeeds before a card is added or credit prepaid (sign-up itself takes Google, GitHub, e-mail
  // or SSO). apmantza/pi-free#144 (2026-05-04) still reported a $5 sign-up credit; later reports say otherwise
  // (zebbern/no-cost-ai#24, 2026-05-23: "You need positive balance to do inference").
  signUp: { cardRequired: true, source: 'https://deepinfra.com/pricing', checked: '2026-11-27' },
  listing: openAIModelListing('https://deepinfra.com/docs/openai_api', describe),
  priority: 110,
  // Checked on 2026-11-25. DeepInfra publishes no deprecation page; retirements below come from
  // model-list refreshes that record what left GET /v1/openai/models, and current ids from the
  // list as read on 2026-09-28 (https://github.com/juspay/neurolink/blob/master/docs/getting-started/providers/deepinfra.md)
  // and the synced entries of https://github.com/truefoundry/models/tree/main/providers/deepinfra.
  models: [
    // DeepInfra's own tool-calling example model; 1048576 tokens.
    { id: 'deepseek-ai/DeepSeek-V4-Flash-0731', quality: intelligenceIndex(51.8, 'deepseek-v4-flash'), capabilities: ['reasoning', 'tool-use', 'long-context'], contextWindow: 1048576 },
    { id: 'openai/gpt-oss-120b', quality: intelligenceIndex(24.1, 'gpt-oss-120b'), capabilities: ['reasoning', 'tool-use', 'long-context'], contextWindow: 131072 },
    // DeepInfra's id for Llama 3.3 70B (the plugin had meta-llama/Meta-Llama-3.3-70B-Instruct, which its list does not carry).
    { id: 'meta-llama/Llama-3.3-70B-Instruct', quality: intelligenceIndex(9.3, 'llama-3-3-instruct-70b'), capabilities: ['fast', 'tool-use', 'long-context'], contextWindow: 131072 },
    { id: 'meta-llama/Meta-Llama-3.1-8B-Instruct', quality: intelligenceIndex(7.4, 'llama-3-1-instruct-8b'), capabilities: ['fast', 'tool-use', 'long-context'], contextWindow: 131072 },
    { id: 'deepseek-ai/DeepSeek-V3', quality: intelligenceIndex(14.2, 'deepseek-v3'), capabilities: ['reasoning', 'tool-use', 'long-context'], contextWindow: 163840 },
    { id: 'deepseek-ai/DeepSeek-R1', quality: intelligenceIndex(18.6, 'deepseek-r1-0120'), capabilities: ['reasoning', 'long-context'], contextWindow: 163840 },
    { id: 'Qwen/Qwen3-32B', quality: intelligenceIndex(8.5, 'qwen3-32b-instruct'), capabilities: ['reasoning', 'tool-use'], contextWindow: 40960 },
    // Not confirmed in a 2026 list (truefoundry's sync never refreshed it after its first import); kept until a source says it left.
    { id: 'meta-llama/Meta-Llama-3.1-405B-Instruct', quality: intelligenceIndex(8.3, 'llama-3-1-instruct-405b'), capabilities: ['reasoning', 'tool-use', 'long-context'], contextWindow: 131072 },
    {
      id: 'Qwen/Qwen2.5-Coder-32B-Instruct',
      capabilities: ['fast', 'tool-use'],
      contextWindow: 32768,
      deprecated: true,
      retired: { date: '2025-09-08', source: 'https://github.com/BerriAI/litellm/pull/14324' },
    },
    {
      // Listed as mistralai/Mistral-Small-3.1-24B-Instruct-2503 until it left the list.
      id: 'mistralai/Mistral-Small-3.1-24B-Instruct',
      capabilities: ['fast', 'tool-use'],
      contextWindow: 32768,
      deprecated: true,
      retired: { date: '2025-09-08', source: 'https://github.com/BerriAI/litellm/pull/14324' },
    },
  ],
  authHeaders: bearerAuth,
  // The rows are in fixtures.ts.
  errorRules: [
    { name: 'not authenticated', status: [401, 403], kind: 'invalid_key' },
    // The model's capacity, not the key's limit: another model or provider can answer now.
    { name: 'model busy', status: 429, body: /model busy/i, kind: 'server' },
    { name: 'rate limited', status: 429, kind: 'rate_limited' },
  ],
  logprobs: true,
  createModel: (options) => openAICompatibleModel('deepinfra', options),
  embeddingModels: deepinfraEmbeddingModels,
  createEmbeddingModel: (options) => openAICompatibleEmbeddingModel('deepinfra', options),
};

export default deepinfra;
