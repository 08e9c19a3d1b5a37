import {
  bearerAuth,
  kindFromId,
  openAICompatibleEmbeddingModel,
  openAICompatibleModel,
  openAIModelListing,
  type OpenAIModelEntry,
  tokenCount,
  LONG_CONTEXT_TOKENS,
} from '../openai-compatible.ts';
import type { Capability, ListedModel, ProviderPlugin } from '../types.ts';
import { vercelEmbeddingModels } from './embeddings.ts';
import { intelligenceIndex } from '../quality.ts';

/** A price of the listing (USD a token, as text) that is zero. */
function zero(value: unknown): boolean {
  return (typeof value === 'string' && value.trim() !== '' && Number(value) === 0) || value === 0;
}

/**
 * Free as the listing shows it: input and output prices given, and every price of the entry zero,
 * tiered ones included (`input_tiers: [{cost, min, max}]`). A missing or empty pricing object
 * (a model priced per request or per image) is not free.
 */
function isZeroPriced(pricing: unknown): boolean {
  if (pricing === null || typeof pricing !== 'object' || Array.isArray(pricing)) return false;
  const prices = pricing as Readonly<Record<string, unknown>>;
  if (prices.input === undefined || prices.output === undefined) return false;
  return Object.values(prices).every((value) =>
    Array.isArray(value) ? value.every((tier: unknown) => tier !== null && typeof tier === 'object' && zero((tier as { cost?: unknown }).cost)) : zero(value),
  );
}

/**
 * One entry of GET https://ai-gateway.vercel.sh/v1/models: `type` (`language`, `embedding`, `image`, ...),
 * `context_window`, `max_tokens`, `tags` (`reasoning`, `tool-use`, `vision`, ...) and `pricing` in USD a
 * token. Every call spends the team's credit: only a model the listing prices at zero is free.
 */
function describeGatewayModel(entry: OpenAIModelEntry): ListedModel {
  const type = entry.type;
  const kind: ListedModel['kind'] = type === 'language' || type === undefined ? kindFromId(entry.id) : type === 'embedding' ? 'embedding' : 'other';
  const contextWindow = tokenCount(entry.context_window);
  const maxOutputTokens = tokenCount(entry.max_tokens);
  const tags = Array.isArray(entry.tags) ? entry.tags : [];
  const capabilities: Capability[] = [];
  if (tags.includes('reasoning')) capabilities.push('reasoning');
  if (tags.includes('tool-use')) capabilities.push('tool-use');
  if (tags.includes('vision')) capabilities.push('vision');
  if (contextWindow !== undefined && contextWindow >= LONG_CONTEXT_TOKENS) capabilities.push('long-context');
  return {
    id: entry.id,
    kind,
    free: isZeroPriced(entry.pricing),
    ...(contextWindow === undefined ? {} : { contextWindow }),
    capabilities,
    ...(maxOutputTokens === undefined ? {} : { maxOutputTokens }),
  };
}

/** The AI Gateway's error type (`{"error": {"message", "type"}}`), matched in the raw body. */
const errorType = (type: string): RegExp => new RegExp(`"type"\\s*:\\s*"${type}"`);

const vercel: ProviderPlugin = {
  id: 'vercel',
  name: 'Vercel AI Gateway',
  header: 'X-Vercel-Key',
  // AI Gateway API keys start with `vck_` (Vercel documents no format; keys and placeholders shown in
  // public setup guides, e.g. "Copy the key (it starts with `vck_…`)", are `vck_` and 56 letters and digits).
  keyPatterns: [/vck_[A-Za-z0-9]{20,}/],
  baseURL: 'https://ai-gateway.vercel.sh/v1',
  keyUrl: 'https://vercel.com/d?to=%2F%5Bteam%5D%2F%7E%2Fai%2Fapi-keys',
  // "$5/month included" on the free tier, from the team's first AI Gateway request; once the team buys
  // credits it is on the paid tier and the monthly credit no longer applies.
  tier: { tier: 'monthly credit', source: 'https://vercel.com/docs/ai-gateway/pricing', checked: '2026-11-27' },
  // "AI Gateway requires a valid credit card on file. You can unlock the free credits by adding a payment
  // method." (Vercel's staff, in the thread cited); without one every call answers 403
  // customer_verification_required (see fixtures.ts).
  signUp: { cardRequired: true, source: 'https://community.vercel.com/t/free-credits-temporarily-have-restricted-access-due-to-abuse/21461', checked: '2026-11-27' },
  // The list answers without a key, so keys are checked with the credit balance, which needs one and costs nothing.
  listing: openAIModelListing('https://vercel.com/docs/ai-gateway/sdks-and-apis/rest-api', describeGatewayModel),
  keyCheck: { source: 'https://vercel.com/docs/ai-gateway/sdks-and-apis/rest-api#check-credit-balance', url: (baseURL) => `${baseURL}/credits` },
  priority: 145,
  // Cheap models worth the $5 credit, checked 2026-11-27: deepseek-v4-flash-0731 as GET /v1/models listed
  // it on 2026-08-23 (0xzr/freellmpool docs/VERCEL_ACCEPTANCE_2026-08-23.md: 1,000,000 tokens in, 384,000
  // out, about $0.08 / $0.15 per 1M); gpt-4o-mini served on the free credit (jal-co/shieldcn#178,
  // 2026-07-04); Gemini 2.5 Flash Lite, as the Gemini models other than 3.x still were on the free credit
  // (community.vercel.com/t/38132, 2026-04-10); MiniMax M3. Windows are the gateway's entries in models.dev
  // (anomalyco/models.dev, providers/vercel/models). The free credit cannot reach every model ("Free tier
  // users do not have access to this model", a 403 that quarantines the model for that key), and the live
  // list has the last word.
  models: [
    { id: 'deepseek/deepseek-v4-flash-0731', quality: intelligenceIndex(51.8, 'deepseek-v4-flash'), capabilities: ['fast', 'reasoning', 'tool-use', 'long-context'], contextWindow: 1_000_000, maxOutputTokens: 384_000 },
    { id: 'openai/gpt-4o-mini', capabilities: ['fast', 'vision', 'tool-use', 'long-context'], contextWindow: 128_000 },
    { id: 'google/gemini-2.5-flash-lite', quality: intelligenceIndex(6.7, 'gemini-2-5-flash-lite'), capabilities: ['fast', 'vision', 'tool-use', 'long-context'], contextWindow: 1_048_576 },
    { id: 'minimax/minimax-m3', quality: intelligenceIndex(45.4, 'minimax-m3'), capabilities: ['reasoning', 'vision', 'tool-use', 'long-context'], contextWindow: 1_000_000 },
  ],
  authHeaders: bearerAuth,
  // https://vercel.com/docs/ai-gateway/rate-limits and the answers quoted in fixtures.ts.
  errorRules: [
    // The team's credit is spent: "Insufficient funds. Please add credits to your account ...".
    { name: 'insufficient funds', status: 402, body: errorType('insufficient_funds'), kind: 'no_credit' },
    // No card on file: the free credit stays locked until one is added.
    { name: 'customer verification required (no card on file)', status: 403, body: errorType('customer_verification_required'), kind: 'no_credit' },
    // The free credit does not reach this model (RestrictedModelsError, type no_providers_available): other
    // models still answer on the same key, so the model is quarantined for it and the key stays healthy.
    {
      name: 'model not available on the free credit',
      status: 403,
      body: /RestrictedModelsError|free_tier_model_not_available|Free tier users do not have access|Free credits temporarily have restricted access/,
      kind: 'model_unavailable',
    },
    // A team policy (a model or provider allowlist, a routing rule) refuses the request: "rejected by policy
    // (e.g. a routing rule), not an authentication failure" (@ai-sdk/gateway, src/errors/gateway-forbidden-error.ts).
    { name: 'refused by a team policy', status: 403, body: errorType('forbidden'), kind: 'model_unavailable' },
    { name: 'invalid API key', status: 401, kind: 'invalid_key' },
    // The free tier's lower per-model limits, or the upstream provider's 429 passed on.
    { name: 'rate limited', status: 429, kind: 'rate_limited' },
  ],
  createModel: (options) => openAICompatibleModel('vercel', options),
  embeddingModels: vercelEmbeddingModels,
  createEmbeddingModel: (options) => openAICompatibleEmbeddingModel('vercel', options),
};

export default vercel;
