import { bearerAuth, kindFromId, openAICompatibleModel, openAICompatibleEmbeddingModel, tokenCount, LONG_CONTEXT_TOKENS } from '../openai-compatible.ts';
import type { Capability, ListedModel, ListingPage, ModelListing, ProviderPlugin } from '../types.ts';
import { cohereEmbeddingModels } from './embeddings.ts';
import { listingEntries } from '../listing-entries.ts';

/** One entry of Cohere's model list (https://docs.cohere.com/reference/list-models), as far as Freeway reads it. */
interface CohereModel {
  readonly name?: unknown;
  readonly is_deprecated?: unknown;
  readonly endpoints?: unknown;
  readonly context_length?: unknown;
  readonly features?: unknown;
  readonly supports_vision?: unknown;
}

/**
 * A trial key serves every Chat model with limits (1,000 calls a month, 20 a minute per model:
 * https://docs.cohere.com/docs/rate-limits), so every chat model is free; a deprecated one is closed to
 * new users (https://docs.cohere.com/docs/deprecations) and never joins an alias.
 */
function describeCohereModel(entry: CohereModel): ListedModel | undefined {
  if (typeof entry.name !== 'string') return undefined;
  const endpoints = Array.isArray(entry.endpoints) ? entry.endpoints : [];
  const features = Array.isArray(entry.features) ? entry.features : [];
  const byId = kindFromId(entry.name);
  const kind: ListedModel['kind'] = endpoints.includes('chat') ? 'chat' : endpoints.includes('embed') ? 'embedding' : byId === 'chat' ? 'other' : byId;
  const contextWindow = tokenCount(entry.context_length);
  const capabilities: Capability[] = [];
  if (features.includes('tools')) capabilities.push('tool-use');
  if (entry.supports_vision === true || features.includes('vision')) capabilities.push('vision');
  if (contextWindow !== undefined && contextWindow >= LONG_CONTEXT_TOKENS) capabilities.push('long-context');
  return {
    id: entry.name,
    kind,
    free: kind === 'chat' && entry.is_deprecated !== true,
    ...(contextWindow === undefined ? {} : { contextWindow }),
    capabilities,
  };
}

/**
 * Cohere's own model list, `GET /v1/models` on the base URL's origin (api.cohere.ai, where the Compatibility API
 * lives): `{"models": [...], "next_page_token": "..."}`, up to 1,000 a page. Not narrowed to `endpoint=chat`:
 * each entry's `endpoints` says what it serves, and a listing that shows embed and rerank models proves they are
 * told apart.
 */
const cohereListing: ModelListing = {
  source: 'https://docs.cohere.com/reference/list-models',
  url: (baseURL, _key, page) =>
    `${baseURL.replace(/\/compatibility\/v1$/, '')}/v1/models?page_size=1000${page === undefined ? '' : `&page_token=${encodeURIComponent(page)}`}`,
  read(body): ListingPage {
    if (body === null || typeof body !== 'object') throw new Error('not a Cohere model list: not an object');
    const { models, next_page_token: next } = body as { models?: unknown; next_page_token?: unknown };
    if (!Array.isArray(models)) throw new Error('not a Cohere model list: no models array');
    const listed: ListedModel[] = [];
    for (const entry of listingEntries<CohereModel>(models, 'name')) {
      const model = describeCohereModel(entry);
      if (model) listed.push(model);
    }
    return { models: listed, ...(typeof next === 'string' && next !== '' ? { next } : {}) };
  },
};

/** 00:00 UTC on the first day of the month after `now`. */
function nextMonth(now: number): number {
  const date = new Date(now);
  return Date.UTC(date.getUTCFullYear(), date.getUTCMonth() + 1, 1);
}

const cohere: ProviderPlugin = {
  id: 'cohere',
  name: 'Cohere',
  header: 'X-Cohere-Key',
  keyPatterns: [],
  baseURL: 'https://api.cohere.ai/compatibility/v1',
  keyUrl: 'https://dashboard.cohere.com/api-keys',
  // Trial (evaluation) keys are "free but limited in usage": 1,000 calls a month, 20 Chat calls a minute per model.
  tier: { tier: 'free with limits', source: 'https://docs.cohere.com/docs/rate-limits', checked: '2026-11-27' },
  // A trial key is made with every new account (nango.dev's Cohere guide): "Free \"Trial\" API key, no credit card"
  // (a list that takes only free tiers without a card, data.json of 2026-10-05).
  signUp: { cardRequired: false, source: 'https://github.com/mnfst/awesome-free-llm-apis/blob/010fa9a482bca94e7061a947005ca78b112d75e6/data.json', checked: '2026-11-27' },
  listing: cohereListing,
  priority: 130,
  // Checked 2026-11-25 against https://docs.cohere.com/docs/models (the Command table: every model below is
  // "Live"; cohere-ai/cohere-developer-experience as of 2026-08-20) and https://docs.cohere.com/docs/deprecations
  // (the retirements of 2025-09-15 and 2026-04-04 touch none of them; developersdigest.tech's reading of
  // 2026-10-17 lists no later one). Cohere's "128k" / "256k" are 128,000 / 256,000 tokens, as its model list
  // reports them. Alias order follows this list.
  models: [
    // Vision input, agentic, reasoning and translation in one model (docs.cohere.com/docs/command-a-plus).
    { id: 'command-a-plus-05-2026', capabilities: ['reasoning', 'vision', 'tool-use', 'long-context'], contextWindow: 128000 },
    { id: 'command-a-reasoning-08-2025', capabilities: ['reasoning', 'tool-use', 'long-context'], contextWindow: 256000 },
    { id: 'command-a-03-2025', capabilities: ['tool-use', 'long-context'], contextWindow: 256000 },
    { id: 'command-a-vision-07-2025', capabilities: ['vision', 'long-context'], contextWindow: 128000 },
    { id: 'command-r-plus-08-2024', capabilities: ['tool-use', 'long-context'], contextWindow: 128000 },
    { id: 'command-r-08-2024', capabilities: ['fast', 'tool-use', 'long-context'], contextWindow: 128000 },
    { id: 'command-r7b-12-2024', capabilities: ['fast', 'tool-use', 'long-context'], contextWindow: 128000 },
  ],
  // Cohere's Compatibility API lists `stream_options` and `user` among its
  // unsupported parameters (a request with stream_options is refused), so they
  // are never sent, and Cohere's streams carry no usage. Callers that do not
  // stream therefore get a non-streaming call, whose answer carries usage.
  // https://docs.cohere.com/docs/compatibility-api
  usageInStreams: false,
  // No extras: `user` is refused (above); the Compatibility API documents no
  // parallel-call switch and no logprobs.
  providerOptions: () => undefined,
  authHeaders: bearerAuth,
  // https://docs.cohere.com/reference/errors and /docs/rate-limits; the rows are in fixtures.ts.
  errorRules: [
    // A trial key has 1,000 calls a month; Cohere does not say when the month turns, so: the calendar month, UTC.
    { name: 'trial key monthly limit', status: 429, body: /\/ month/, kind: 'rate_limited', retryAt: (_answer, now) => nextMonth(now) },
    { name: 'per-minute limit', status: 429, kind: 'rate_limited' },
    { name: 'invalid api token', status: 401, kind: 'invalid_key' },
    // "sent when the account has reached its billing limit": no payment method, or the key's monthly maximum.
    { name: 'billing limit reached', status: 402, kind: 'no_credit' },
    // Unknown, and retired: "model 'command' was removed on September 15, 2025".
    { name: 'model not found or removed', status: 404, kind: 'model_unavailable' },
    { name: 'too many tokens', status: 400, body: /too many tokens/i, kind: 'context_too_long' },
  ],
  createModel: (options) =>
    openAICompatibleModel('cohere', options, {
      includeUsage: false,
      transformRequestBody: ({ user: _user, stream_options: _streamOptions, ...body }) => body,
    }),
  embeddingModels: cohereEmbeddingModels,
  createEmbeddingModel: (options) => openAICompatibleEmbeddingModel('cohere', options),
  // `user` is among the Compatibility API's unsupported parameters (above).
  embeddingOptions: () => undefined,
};

export default cohere;
