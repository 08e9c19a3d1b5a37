import { kindFromId, tokenCount, LONG_CONTEXT_TOKENS } from '../openai-compatible.ts';
import { nextMidnight } from '../resets.ts';
import type { Capability, ListedModel, ListingPage, ModelListing, ProviderPlugin } from '../types.ts';
import { createGoogleEmbeddingModel, googleEmbeddingModels } from './embeddings.ts';
import { listingEntries } from '../listing-entries.ts';

const deprecations = 'https://ai.google.dev/gemini-api/docs/deprecations';

/**
 * The chat models on the free-tier column of https://ai.google.dev/gemini-api/docs/pricing as read on
 * 2026-10-22 (quoted in https://apidog.com/jp/blog/gemini-api-free-tier/ and, 2026-10-07, in
 * api-evangelist/deepmind plans/deepmind-plans-pricing.yml): Gemini 3.8 Flash, 3.6 Flash, 3.5 Flash-Lite,
 * 3.1 Flash-Lite and Gemma 4 are "Free of charge"; Gemini 4 Argon, 3.5 Flash, 3.1 Pro Preview and the image
 * and video models are not. Google's listing does not say what is free, so only these join the aliases.
 */
const freeTier: ReadonlySet<string> = new Set(['gemini-3.8-flash', 'gemini-3.6-flash', 'gemini-3.5-flash-lite', 'gemini-3.1-flash-lite']);
const freeTierFamily = /^gemma-4-/;

/** Models that answer generateContent with images or speech, or only on the Live API: never routed as chat. */
const notChat = /-image(?:-|$)|nano-banana|-tts(?:-|$)|native-audio|-live(?:-|$)/;

/** One entry of models.list (https://ai.google.dev/api/models#Model), as far as Freeway reads it. */
interface GeminiModel {
  readonly name?: unknown;
  readonly supportedGenerationMethods?: unknown;
  readonly inputTokenLimit?: unknown;
  readonly outputTokenLimit?: unknown;
  readonly thinking?: unknown;
}

function geminiKind(id: string, methods: readonly unknown[]): ListedModel['kind'] {
  if (methods.includes('embedContent')) return 'embedding';
  if (!methods.includes('generateContent') || notChat.test(id)) return 'other';
  return kindFromId(id);
}

function describeGeminiModel(entry: GeminiModel): ListedModel | undefined {
  if (typeof entry.name !== 'string' || !entry.name.startsWith('models/')) return undefined;
  const id = entry.name.slice('models/'.length);
  const methods = Array.isArray(entry.supportedGenerationMethods) ? entry.supportedGenerationMethods : [];
  const kind = geminiKind(id, methods);
  const contextWindow = tokenCount(entry.inputTokenLimit);
  const maxOutputTokens = tokenCount(entry.outputTokenLimit);
  const capabilities: Capability[] = [];
  if (contextWindow !== undefined && contextWindow >= LONG_CONTEXT_TOKENS) capabilities.push('long-context');
  if (entry.thinking === true) capabilities.push('reasoning');
  return {
    id,
    kind,
    free: kind === 'chat' && (freeTier.has(id) || freeTierFamily.test(id)),
    ...(contextWindow === undefined ? {} : { contextWindow }),
    ...(capabilities.length === 0 ? {} : { capabilities }),
    ...(maxOutputTokens === undefined ? {} : { maxOutputTokens }),
  };
}

/** Gemini's models.list: `{"models": [...], "nextPageToken": "..."}`, at most 1,000 models a page. */
const geminiListing: ModelListing = {
  source: 'https://ai.google.dev/api/models#method:-models.list',
  url: (baseURL, _key, page) => `${baseURL}/models?pageSize=1000${page === undefined ? '' : `&pageToken=${encodeURIComponent(page)}`}`,
  read(body): ListingPage {
    if (body === null || typeof body !== 'object') throw new Error('not a Gemini model list: not an object');
    const { models, nextPageToken: next } = body as { models?: unknown; nextPageToken?: unknown };
    if (!Array.isArray(models)) throw new Error('not a Gemini model list: no models array');
    const listed: ListedModel[] = [];
    for (const entry of listingEntries<GeminiModel>(models, 'name')) {
      const model = describeGeminiModel(entry);
      if (model) listed.push(model);
    }
    return { models: listed, ...(typeof next === 'string' && next !== '' ? { next } : {}) };
  },
};

const google: ProviderPlugin = {
  id: 'google',
  name: 'Google',
  header: 'X-Google-Key',
  keyPatterns: [/AIza[A-Za-z0-9_-]+/],
  baseURL: 'https://generativelanguage.googleapis.com/v1beta',
  keyUrl: 'https://aistudio.google.com/apikey',
  // A project without billing is on the free tier: free input and output tokens on the models of the free-tier
  // column, within per-project limits that Google now shows only in AI Studio (pricing and rate-limits pages).
  tier: { tier: 'free with limits', source: 'https://ai.google.dev/gemini-api/docs/pricing', checked: '2026-11-27' },
  // "New accounts begin on the Free Tier" (qualification: "Active project or free trial"); only Tier 1 and up ask to
  // "Set up and link an active billing account".
  signUp: { cardRequired: false, source: 'https://ai.google.dev/gemini-api/docs/billing', checked: '2026-11-27' },
  listing: geminiListing,
  priority: 30,
  // Checked 2026-11-25 against https://ai.google.dev/gemini-api/docs/models (each model's page), the pricing page's
  // free-tier column (see freeTier above) and https://ai.google.dev/gemini-api/docs/deprecations. Alias order
  // follows this list. Token limits and thinking levels from each model page: gemini-3.8-flash (quoted in
  // docs.apiyi.com/en/live/2026-09/gemini-3-8-flash-official-specs), gemini-3.6-flash and gemini-3.5-flash-lite
  // (/docs/models/gemini-3.5-flash-lite, /docs/whats-new-gemini-3.6), gemini-3.1-flash-lite (GA 2026-05-07).
  models: [
    { id: 'gemini-3.8-flash', capabilities: ['reasoning', 'vision', 'tool-use', 'long-context', 'pdf'], contextWindow: 1048576, maxOutputTokens: 65536, reasoningEffort: true },
    { id: 'gemini-3.6-flash', capabilities: ['fast', 'reasoning', 'vision', 'tool-use', 'long-context', 'pdf'], contextWindow: 1048576, maxOutputTokens: 65536, reasoningEffort: true },
    { id: 'gemini-3.5-flash-lite', capabilities: ['fast', 'vision', 'tool-use', 'long-context', 'pdf'], contextWindow: 1048576, maxOutputTokens: 65536, reasoningEffort: true },
    { id: 'gemini-3.1-flash-lite', capabilities: ['fast', 'vision', 'tool-use', 'long-context', 'pdf'], contextWindow: 1048576, maxOutputTokens: 65536 },
    // Not deprecated and "remains available through the API until further notice"; on the free tier in April 2026
    // (the pricing page as quoted in robhunter/agentdeals#896), not named on the October reading.
    { id: 'gemini-2.5-flash-lite', capabilities: ['fast', 'tool-use', 'long-context', 'pdf'], contextWindow: 1048576, maxOutputTokens: 65536 },
    // Deprecated, no longer selectable in AI Studio, shut down on 2026-12-01 (the announced date; requests are then
    // routed to gemini-3.5-flash-lite and gemini-3.8-flash and billed at their rates); 2.5 Pro left the free tier
    // in April 2026 (agentdeals#896).
    {
      id: 'gemini-2.5-flash',
      capabilities: ['fast', 'vision', 'tool-use', 'long-context', 'pdf'],
      contextWindow: 1048576,
      reasoningEffort: true,
      deprecated: true,
      retired: { date: '2026-12-01', source: deprecations },
    },
    {
      id: 'gemini-2.5-pro',
      capabilities: ['reasoning', 'vision', 'tool-use', 'long-context', 'pdf'],
      contextWindow: 1048576,
      reasoningEffort: true,
      deprecated: true,
      retired: { date: '2026-12-01', source: deprecations },
    },
  ],
  authHeaders: (key) => ({ 'x-goog-api-key': key }),
  // https://ai.google.dev/gemini-api/docs/troubleshooting and /docs/rate-limits; the rows are in fixtures.ts.
  errorRules: [
    // A wrong key is a 400 INVALID_ARGUMENT here: the key's fault, not the request's.
    { name: 'invalid API key', status: 400, body: /API_KEY_INVALID|API key not valid/, kind: 'invalid_key' },
    { name: 'input token count over the limit', status: 400, body: /input token count.*exceeds the maximum/i, kind: 'context_too_long' },
    // A prepaid project whose credit ran out: no quota will come back on its own (dyad-sh/dyad#3626).
    { name: 'prepayment credits depleted', status: [402, 429], body: /prepayment credits are depleted/i, kind: 'no_credit' },
    {
      name: 'daily quota (a PerDay quota id)',
      status: 429,
      body: /"quotaId":\s*"\w*PerDay/,
      kind: 'rate_limited',
      // "Requests per day (RPD) quotas reset at midnight Pacific time"; RetryInfo only covers the minute.
      retryAt: (_answer, now) => nextMidnight('America/Los_Angeles', now),
    },
    { name: 'per-minute quota (RetryInfo gives the delay)', status: 429, kind: 'rate_limited' },
    { name: 'key without permission', status: 403, kind: 'invalid_key' },
    { name: 'model not found', status: 404, kind: 'model_unavailable' },
  ],
  // Gemini's API has no end-user id, parallel-call switch or OpenAI-format logprobs.
  providerOptions: () => undefined,
  // The SDK insists on a key at construction; every call's authHeaders replace it.
  createModel: async ({ modelId, baseURL, fetch }) => {
    const { createGoogleGenerativeAI } = await import('@ai-sdk/google');
    return createGoogleGenerativeAI({ apiKey: 'per-request', baseURL, fetch }).languageModel(modelId);
  },
  embeddingModels: googleEmbeddingModels,
  createEmbeddingModel: createGoogleEmbeddingModel,
  // The Gemini API has no end-user id.
  embeddingOptions: () => undefined,
};

export default google;
