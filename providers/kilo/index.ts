import { bearerAuth, openAICompatibleModel, openAIModelListing, openRouterStyleModel } from '../openai-compatible.ts';
import { intelligenceIndex } from '../quality.ts';
import type { ProviderPlugin } from '../types.ts';

/** Kilo AI Gateway's "Authentication" page, read on 2026-12-01. */
const AUTHENTICATION = 'https://kilo.ai/docs/gateway/authentication';
/** Kilo AI Gateway's "Models & Providers" page, read on 2026-12-01. */
const MODELS = 'https://kilo.ai/docs/gateway/models-and-providers';

const kilo: ProviderPlugin = {
  id: 'kilo',
  name: 'Kilo AI Gateway',
  header: 'X-Kilo-Key',
  // "API keys are JWT tokens tied to your Kilo account" (AUTHENTICATION): three base64url parts, the first two JSON.
  keyPatterns: [/eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}/],
  keyHint: 'a JWT, eyJ….eyJ….…',
  // "a unified, OpenAI-compatible API ... through a single endpoint at https://api.kilo.ai/api/gateway"
  // (https://kilo.ai/docs/gateway, read 2026-12-01).
  baseURL: 'https://api.kilo.ai/api/gateway',
  keyUrl: 'https://app.kilo.ai',
  // Free models cost nothing, with an account's key or without one; the others are paid from the account's balance
  // (MODELS: "Several models are available at no cost, subject to rate limits").
  tier: { tier: 'free with limits', source: MODELS, checked: '2026-12-01' },
  // "No Credit Card Required: Start with free models or bring your own keys" (https://www.kilo.ai/gateway, read 2026-12-01).
  signUp: { cardRequired: false, source: 'https://www.kilo.ai/gateway', checked: '2026-12-01' },
  // "The gateway allows unauthenticated access for free models only. Anonymous requests are identified by IP address
  // and are subject to rate limiting (200 requests per hour per IP)" (AUTHENTICATION). Unauthenticated means no
  // Authorization header at all, which is what Freeway sends for a call without a key: a literal `Bearer anonymous`
  // is what Kilo's own extension sent on its older /api/openrouter path (diegosouzapw/OmniRoute#5259, 2026-06-28),
  // not what the gateway's page documents.
  anonymous: {
    limits: '200 requests an hour per IP address, free models only (an account\'s key gets higher limits on the same models); over it, 429',
    // All gateway traffic goes through OpenRouter (Kilo's maintainer on Kilo-Org/kilocode#2279, 2025-11-04), whose
    // default lets a model's provider keep and train on prompts ("allow: (default) allow providers that may train
    // on user data", https://openrouter.ai/docs/client-sdks/python/components/videogenerationrequestdatacollection); Kilo documents no other policy
    // for free models.
    privacy: 'Kilo passes prompts through OpenRouter to the free model\'s provider, which may keep them and train on them under its own terms',
    source: AUTHENTICATION,
    checked: '2026-12-01',
  },
  // "GET https://api.kilo.ai/api/gateway/models ... returns model information including pricing, context window, and
  // supported features. No authentication is required" (MODELS); the entries are OpenRouter's, which Kilo relays.
  // Calls without a key follow it too: Kilo rotates its free models, and the list shows the current ones.
  listing: { ...openAIModelListing(MODELS, openRouterStyleModel), keyless: true },
  priority: 97,
  // The "Free models" table of MODELS as read on 2026-12-01 (its newest stored copy; earlier copies of the page listed
  // other `:free` models, which Kilo rotates: the live list has the last word for a key). `openrouter/free` ("Best
  // available free model") is a router whose abilities change with its pick: pinnable, not curated. Windows and
  // abilities as OpenRouter lists the same models (providers/openrouter, checked 2026-11-25), and StepFun's page for
  // Step 3.7 Flash (https://openrouter.ai/stepfun/step-3.7-flash-20260528/api: 256K, image input, reasoning levels;
  // tools per https://stepfun2.mintlify.app/en/guides/models/reasoning).
  models: [
    { id: 'nvidia/nemotron-3-ultra-550b-a55b:free', quality: intelligenceIndex(38.3, 'nvidia-nemotron-3-ultra-550b-a55b'), capabilities: ['reasoning', 'tool-use', 'long-context'], contextWindow: 1000000, maxOutputTokens: 65536 },
    { id: 'stepfun/step-3.7-flash:free', capabilities: ['reasoning', 'tool-use', 'vision', 'long-context'], contextWindow: 262144 },
    { id: 'poolside/laguna-m.1:free', capabilities: ['tool-use', 'reasoning', 'long-context'], contextWindow: 262144, maxOutputTokens: 32768 },
  ],
  // For a key; a call without one carries no Authorization header.
  authHeaders: bearerAuth,
  // Kilo documents no error bodies; the rows are in fixtures.ts.
  errorRules: [
    // The anonymous 200 an hour per address, or an account's higher limit (AUTHENTICATION).
    { name: 'rate limit (200 requests an hour per address without a key)', status: 429, kind: 'rate_limited' },
    { name: 'invalid or expired key', status: 401, kind: 'invalid_key' },
    // A paid model without balance, or without a key at all ("unauthenticated access for free models only").
    { name: 'paid model without balance', status: 402, kind: 'no_credit' },
  ],
  createModel: (options) => openAICompatibleModel('kilo', options),
};

export default kilo;
