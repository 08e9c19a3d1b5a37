import { bearerAuth, kindFromId, LONG_CONTEXT_TOKENS, openAICompatibleModel, openAIModelListing, tokenCount, type OpenAIModelEntry } from '../openai-compatible.ts';
import type { Capability, ListedModel, ProviderPlugin } from '../types.ts';

/** LLM7's "Models API" guide, read on 2026-12-01. */
const MODELS_API = 'https://docs.llm7.io/guides/models-api';
/**
 * LLM7's own plans, as its landing page's source states them (components/FeaturedComponent.tsx, newest stored version,
 * read 2026-12-01): "Free: Start instantly with a free token for higher limits ... 5,000,000 tokens/day, 128k
 * chars/req*, 100 r/h, 40 r/m, 2 r/s" ("* Limits depend on the model and may be lower"). An earlier version of the
 * same file offered an "Anonymous" tier ("No sign-up, 8k chars/r, 100 r/h, 10 r/m, 1 r/s"); the newest has none.
 */
const PLANS = 'https://github.com/chigwell/llm7.io/blob/main/components/FeaturedComponent.tsx';

/**
 * One entry of GET /v1/models (MODELS_API): `tier` `turbo` ("fast models available to anonymous and free-token
 * users") or `pro` ("Pro subscribers and users with a topped-up balance"), `usage_based_only`,
 * `modalities.input`, `context_window.tokens`, `tools_calling`, `reasoning`.
 */
function describe(entry: OpenAIModelEntry): ListedModel {
  const window = (entry.context_window ?? {}) as { tokens?: unknown };
  const modalities = (entry.modalities ?? {}) as { input?: unknown };
  const inputs = Array.isArray(modalities.input) ? modalities.input : [];
  const contextWindow = tokenCount(window.tokens);
  const capabilities: Capability[] = [];
  if (inputs.includes('image')) capabilities.push('vision');
  if (entry.tools_calling === true) capabilities.push('tool-use');
  if (entry.reasoning === true) capabilities.push('reasoning');
  if (contextWindow !== undefined && contextWindow >= LONG_CONTEXT_TOKENS) capabilities.push('long-context');
  return {
    id: entry.id,
    kind: kindFromId(entry.id),
    free: entry.tier === 'turbo' && entry.usage_based_only !== true,
    ...(contextWindow === undefined ? {} : { contextWindow }),
    capabilities,
  };
}

/**
 * LLM7.io. Calls without a token are not offered: LLM7's privacy policy says "Access to the API requires an API
 * token issued via dash.llm7.io" (https://github.com/chigwell/llm7.io/blob/main/PRIVACY.md, last updated
 * 2026-10-02), its plans (PLANS) dropped the anonymous tier, and a keyless chat call was answered
 * `401 {"error":{"message":"Missing API key.","type":"authentication_error"}}` on 2026-08-11
 * (0xzr/freellmpool#109). The free token is the way in.
 */
const llm7: ProviderPlugin = {
  id: 'llm7',
  name: 'LLM7.io',
  header: 'X-Llm7-Key',
  // The token's format is not documented: no pattern, so a token is redacted as the request's own key.
  keyPatterns: [],
  // OpenAI-compatible: `curl https://api.llm7.io/v1/models` and `model` for /v1/chat/completions (MODELS_API).
  baseURL: 'https://api.llm7.io/v1',
  keyUrl: 'https://dash.llm7.io',
  tier: { tier: 'free with limits', source: PLANS, checked: '2026-12-01' },
  // Sign-in is Google OAuth, with no payment for the free token (PRIVACY.md, "Account & authentication").
  signUp: { cardRequired: false, source: 'https://github.com/chigwell/llm7.io/blob/main/PRIVACY.md', checked: '2026-12-01' },
  listing: openAIModelListing(MODELS_API, describe),
  priority: 98,
  // The selectors MODELS_API names ("You can also use selectors such as default, fast, and pro where supported"):
  // `default` and `fast` route to turbo models on a free token; `pro` needs a Pro plan or balance. "Function calling"
  // and "JSON mode" are Pro features (PLANS), so neither selector is curated for tools. Window: 128k characters a
  // request on the free token (PLANS), about 32,000 tokens.
  models: [
    { id: 'default', capabilities: [], contextWindow: 32000 },
    { id: 'fast', capabilities: ['fast'], contextWindow: 32000 },
  ],
  authHeaders: bearerAuth,
  // The rows are in fixtures.ts.
  errorRules: [
    { name: 'missing or invalid token', status: 401, kind: 'invalid_key' },
    // The free token's 40 a minute, 100 an hour, 5,000,000 tokens a day (PLANS); no body documented.
    { name: 'free token rate limit', status: 429, kind: 'rate_limited' },
  ],
  createModel: (options) => openAICompatibleModel('llm7', options),
};

export default llm7;
