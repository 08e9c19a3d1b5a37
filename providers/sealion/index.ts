import { bearerAuth, kindFromId, openAICompatibleModel, openAIModelListing, type OpenAIModelEntry } from '../openai-compatible.ts';
import type { ListedModel, ProviderPlugin } from '../types.ts';

/** AI Singapore's "SEA-LION API" guide, read on 2026-12-01. */
const API_GUIDE = 'https://docs.sea-lion.ai/guides/inferencing/api';

/** Every model the key's list shows is one the trial key may call: no model of the API is billed. */
const describe = (entry: OpenAIModelEntry): ListedModel => ({ id: entry.id, kind: kindFromId(entry.id), free: true });

const sealion: ProviderPlugin = {
  id: 'sealion',
  name: 'SEA-LION',
  header: 'X-Sealion-Key',
  // The key's form is not documented: no pattern, so a key is redacted as the request's own key.
  keyPatterns: [],
  // "SEA-LION's API endpoints for chat are compatible with OpenAI's API and libraries":
  // https://api.sea-lion.ai/v1/chat/completions and /v1/models (API_GUIDE).
  baseURL: 'https://api.sea-lion.ai/v1',
  // "Sign in to SEA-LION Playground via your Google account ... Create New Trial API Key"; one key per user (API_GUIDE).
  keyUrl: 'https://playground.sea-lion.ai',
  // A trial key at no cost, limited per minute: 10 requests a minute, as the guide's Rate Limits section is quoted
  // ("Rate limit: 10 requests per minute" in clients of the API, and "10 rpm recurring; Google sign-in, no card" in a
  // free-provider table of 2026), with no end date or credit stated.
  tier: { tier: 'free with limits', source: API_GUIDE, checked: '2026-12-01' },
  signUp: { cardRequired: false, source: API_GUIDE, checked: '2026-12-01' },
  listing: openAIModelListing(API_GUIDE, describe),
  priority: 99,
  // The models the guide's examples call (API_GUIDE, 2026-12-01). Windows: Gemma-SEA-LION-v4-27B-IT 128,000 tokens
  // (https://developers.cloudflare.com/workers-ai/models/gemma-sea-lion-v4-27b-it/); the v3.5 reasoning model is
  // Llama 3.1 70B based (128K); Qwen-SEA-LION-v4-32B-IT is given Qwen3-32B's native 32,768. Tool calling is not
  // documented for any of them.
  models: [
    { id: 'aisingapore/Gemma-SEA-LION-v4-27B-IT', capabilities: ['long-context'], contextWindow: 128000 },
    { id: 'aisingapore/Qwen-SEA-LION-v4-32B-IT', capabilities: [], contextWindow: 32768 },
    { id: 'aisingapore/Llama-SEA-LION-v3.5-70B-R', capabilities: ['reasoning', 'long-context'], contextWindow: 131072 },
  ],
  authHeaders: bearerAuth,
  // No error bodies are documented; the rows are in fixtures.ts.
  errorRules: [
    { name: 'per-minute rate limit (10 requests a minute)', status: 429, kind: 'rate_limited' },
    { name: 'invalid key', status: [401, 403], kind: 'invalid_key' },
  ],
  createModel: (options) => openAICompatibleModel('sealion', options),
};

export default sealion;
