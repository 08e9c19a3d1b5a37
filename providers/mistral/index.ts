import { bearerAuth, kindFromId, openAICompatibleModel, openAIModelListing, type OpenAIModelEntry, openAICompatibleEmbeddingModel, tokenCount, LONG_CONTEXT_TOKENS } from '../openai-compatible.ts';
import { quotaReader } from '../quota.ts';
import type { Capability, ListedModel, ProviderPlugin } from '../types.ts';
import { mistralEmbeddingModels } from './embeddings.ts';
import { intelligenceIndex } from '../quality.ts';

/** The model cards' source (mistralai/platform-docs-public, read as of 2026-08-21). */
const modelCard = (slug: string): string => `https://docs.mistral.ai/models/model-cards/${slug}`;

/** The flags of a model card's `capabilities` (https://docs.mistral.ai/api/endpoint/models). */
interface MistralCapabilities {
  readonly completion_chat?: unknown;
  readonly function_calling?: unknown;
  readonly vision?: unknown;
  readonly reasoning?: unknown;
  readonly audio_transcription?: unknown;
}

/**
 * One model card of Mistral's list. Free mode, "enabled by default with limited rate limits"
 * (https://docs.mistral.ai/admin/user-management-finops/tier.md), gives API access "with no credit card required"
 * (https://docs.mistral.ai/getting-started/quickstarts/studio/activate-and-generate-api-key) and names no model it
 * leaves out: every current chat model is free within it. A card with a `deprecation` date is on its way out, and
 * a fine-tuned model is the account's own: neither joins an alias.
 */
function describeMistralModel(entry: OpenAIModelEntry): ListedModel {
  const flags = (entry.capabilities ?? {}) as MistralCapabilities;
  const byId = kindFromId(entry.id);
  const kind: ListedModel['kind'] =
    flags.completion_chat === true ? 'chat' : flags.audio_transcription === true ? 'transcription' : byId === 'chat' ? 'other' : byId;
  const contextWindow = tokenCount(entry.max_context_length);
  const capabilities: Capability[] = [];
  if (flags.function_calling === true) capabilities.push('tool-use');
  if (flags.vision === true) capabilities.push('vision');
  if (flags.reasoning === true) capabilities.push('reasoning');
  if (contextWindow !== undefined && contextWindow >= LONG_CONTEXT_TOKENS) capabilities.push('long-context');
  const retiring = typeof entry.deprecation === 'string' && entry.deprecation !== '';
  const ownFineTune = entry.type === 'fine-tuned' || entry.TYPE === 'fine-tuned';
  return {
    id: entry.id,
    kind,
    free: kind === 'chat' && !retiring && !ownFineTune && entry.archived !== true,
    ...(contextWindow === undefined ? {} : { contextWindow }),
    capabilities,
  };
}

const mistral: ProviderPlugin = {
  id: 'mistral',
  name: 'Mistral',
  header: 'X-Mistral-Key',
  keyPatterns: [],
  baseURL: 'https://api.mistral.ai/v1',
  keyUrl: 'https://console.mistral.ai/api-keys',
  // Free mode is the default for every new account: API access without a credit card, with low rate limits
  // "for evaluation and prototyping" (https://docs.mistral.ai/admin/user-management-finops/tier.md); the Scale plan
  // (pay as you go) lifts them. Its allowance is money that renews: the Free plan card of the pricing page says
  // "$10 /mo in API credits", shared with Studio and Vibe, and "The allowance is no longer expressed in tokens"
  // (quoted in mnfst/awesome-free-llm-apis#100 of 2026-08-19 and in its data.json of 2026-10-05, read 2026-11-27).
  // Unconfirmed: a user reported 429s where free mode used to answer (diegosouzapw/OmniRoute discussion #16252, autumn
  // 2026; its maintainers could not confirm a change), while Mistral's quickstart still describes free mode.
  tier: { tier: 'monthly credit', source: 'https://mistral.ai/pricing', checked: '2026-11-27' },
  // "Free mode: API access is enabled by default with no credit card required. Usage and rate limits apply."
  signUp: { cardRequired: false, source: 'https://docs.mistral.ai/getting-started/quickstarts/studio/activate-and-generate-api-key', checked: '2026-11-27' },
  listing: openAIModelListing('https://docs.mistral.ai/api/endpoint/models', describeMistralModel),
  priority: 50,
  // Checked 2026-11-25 against the model cards (https://docs.mistral.ai/models, mistralai/platform-docs-public as
  // of 2026-08-21) and their deprecation dates. Mistral's "256k" and "128k" windows are 262,144 and 131,072 tokens.
  // Alias order follows this list. No reasoningEffort: Mistral's reasoning_effort takes only "high" and "none"
  // (https://docs.mistral.ai/studio/conversations/reasoning), which an effort level cannot be mapped onto.
  models: [
    // Mistral Small 4 (mistral-small-2603): instruct, reasoning and coding in one model; text and image in.
    { id: 'mistral-small-latest', quality: intelligenceIndex(19.7, 'mistral-small-4'), capabilities: ['fast', 'reasoning', 'vision', 'tool-use', 'long-context'], contextWindow: 262144 },
    // Mistral Medium 3.5 (mistral-medium-3-5): reasoning output, text and image in.
    { id: 'mistral-medium-latest', quality: intelligenceIndex(30.4, 'mistral-medium-3-5'), capabilities: ['reasoning', 'vision', 'tool-use', 'long-context'], contextWindow: 262144 },
    // Mistral Large 3 (mistral-large-2512).
    { id: 'mistral-large-latest', quality: intelligenceIndex(15.9, 'mistral-large-3'), capabilities: ['vision', 'tool-use', 'long-context'], contextWindow: 262144 },
    // Ministral 3 8B (ministral-8b-2512), the named replacement of Mistral NeMo.
    { id: 'ministral-8b-latest', quality: intelligenceIndex(9, 'ministral-3-8b'), capabilities: ['fast', 'vision', 'tool-use', 'long-context'], contextWindow: 262144 },
    // Codestral 25.08 (codestral-2508): its card says 128k.
    { id: 'codestral-latest', capabilities: ['fast', 'tool-use', 'long-context'], contextWindow: 131072 },
    // Deprecated 2026-05-22, retired 2026-07-31 (replacement: Ministral 3 8B).
    {
      id: 'open-mistral-nemo',
      capabilities: ['fast', 'tool-use', 'long-context'],
      contextWindow: 131072,
      deprecated: true,
      retired: { date: '2026-07-31', source: modelCard('mistral-nemo-12b-24-07') },
    },
  ],
  authHeaders: bearerAuth,
  // The rows are in fixtures.ts.
  errorRules: [
    { name: 'request rate limit', status: 429, kind: 'rate_limited' },
    { name: 'invalid API key', status: 401, kind: 'invalid_key' },
    // Unknown, and retired: a retired model answers 400 invalid_model, not 404.
    { name: 'invalid model', status: 400, body: /invalid_model|Invalid model/, kind: 'model_unavailable' },
    { name: 'context length exceeded', status: 400, body: /maximum context length|too large for model/i, kind: 'context_too_long' },
  ],
  // Per-minute remaining requests and tokens (names as Mistral sends them, mistralai/client-ts#169); no reset is sent.
  readQuota: quotaReader({ remainingRequests: 'x-ratelimit-remaining-req-minute', remainingTokens: 'x-ratelimit-remaining-tokens-minute', resetFormat: 'duration' }),
  createModel: (options) => openAICompatibleModel('mistral', options, { supportsStructuredOutputs: true }),
  embeddingModels: mistralEmbeddingModels,
  createEmbeddingModel: (options) => openAICompatibleEmbeddingModel('mistral', options),
};

export default mistral;
