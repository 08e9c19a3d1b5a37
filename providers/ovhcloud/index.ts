import { bearerAuth, listedWithLimits, openAIModelListing, openAICompatibleEmbeddingModel, openAICompatibleModel, type OpenAIModelEntry } from '../openai-compatible.ts';
import type { ListedModel, ProviderPlugin } from '../types.ts';
import { ovhcloudEmbeddingModels } from './embeddings.ts';
import { intelligenceIndex } from '../quality.ts';

/** OVHcloud's "AI Endpoints - Getting started" guide (updated 2026-03-19), read from its source on 2026-11-27. */
const GETTING_STARTED = 'https://github.com/ovh/docs/blob/develop/pages/public_cloud/ai_machine_learning/endpoints_guide_01_getting_started/guide.en-gb.md';

/**
 * One entry of `GET /v1/models`, which answers without a key: OpenAI's list with `context_length`,
 * `max_completion_tokens` and per-token `pricing` (`prompt`, `completion`), as read unauthenticated on
 * 2026-09-28 (https://github.com/juspay/neurolink/blob/master/docs/getting-started/providers/ovhcloud.md).
 * It lists speech, embedding, image and guard models beside the chat ones, told apart by id. A key's calls
 * are billed per token, so nothing listed is free on a key.
 */
function describe(entry: OpenAIModelEntry): ListedModel {
  return listedWithLimits(entry.id, false, { contextWindow: entry.context_length, maxOutputTokens: entry.max_completion_tokens });
}

const ovhcloud: ProviderPlugin = {
  id: 'ovhcloud',
  name: 'OVHcloud AI Endpoints',
  header: 'X-Ovhcloud-Key',
  // The format of the API keys the Public Cloud manager creates is not documented (the older console's access
  // tokens were JWTs, "eyJhbGciOiJSUzI1NiIsInR5...", as shown in
  // https://github.com/thomaslorineau/Customer_feedbacks_tracker/blob/main/docs/guides/QUICK_START_LLM.md): no pattern,
  // so a key is redacted as the request's own key, never by its shape.
  keyPatterns: [],
  // "our LLM APIs are compatible with the OpenAI specifications" (GETTING_STARTED). The base URL of every catalog
  // card and of OVHcloud's own integrations (LlamaIndex, Strands), checked 2026-11-27.
  baseURL: 'https://oai.endpoints.kepler.ai.cloud.ovh.net/v1',
  // Then Public Cloud > your project > AI & Machine Learning > AI Endpoints > API keys (GETTING_STARTED).
  keyUrl: 'https://ovh.com/manager',
  // Billed per token by model (https://help.ovhcloud.com/csm/en-ie-public-cloud-ai-endpoints-billing?id=kb_article_view&sysparm_article=KB0067532,
  // 2026-02-06), and "Access keys created from Public Cloud projects in Discovery mode (without a payment method)
  // cannot use the service" (GETTING_STARTED, read 2026-11-27). The free use is the anonymous one below.
  tier: { tier: 'paid only', source: GETTING_STARTED, checked: '2026-11-27' },
  signUp: { cardRequired: true, source: GETTING_STARTED, checked: '2026-11-27' },
  // A call without any key, as OVHcloud's own integrations document ("Free tier (with rate limits): No API key
  // required", https://developers.llamaindex.ai/typescript/framework/modules/models/llms/ovhcloud).
  anonymous: {
    // "Anonymous: 2 requests per minute, per IP and per model. Authenticated with an API access key: 400 requests
    // per minute, per PCI project and per model. If you exceed this limit, a 429 error code will be returned."
    // (GETTING_STARTED, updated 2026-03-19). A third-party measurement of 2026-09-18 saw one address's
    // anonymous allowance spent across every model at once, so per model is the most it can be.
    limits: '2 requests a minute per IP address and per model (a key: 400 requests a minute per project and model); over it, 429',
    // GETTING_STARTED: "we do not store user data". "AI Endpoints - Features, Capabilities and Limitations"
    // (endpoints_guide_02_capabilities in the same repository, updated 2025-08-18): "Data is not stored or shared
    // during or after model use", on infrastructure in Gravelines, France. Neither page treats calls without a key
    // differently.
    privacy: 'OVHcloud says it neither stores nor shares the data of a call, during or after it; inference runs in Gravelines, France',
    source: GETTING_STARTED,
    checked: '2026-11-27',
  },
  listing: openAIModelListing('https://github.com/juspay/neurolink/blob/master/docs/getting-started/providers/ovhcloud.md', describe),
  priority: 93,
  // Checked 2026-11-27 against the model roster OVHcloud's unauthenticated GET /v1/models returned on 2026-09-28
  // (context_length per id) and the catalog's per-model "Function calling" and "Vision" columns, as recorded in
  // https://github.com/juspay/neurolink/blob/master/src/lib/providers/catalog/ovhcloud.json. Ids are case-sensitive.
  models: [
    // The catalog card lists a reasoning_effort parameter (low, medium, high) and a reasoning_content answer field.
    { id: 'gpt-oss-120b', quality: intelligenceIndex(24.1, 'gpt-oss-120b'), capabilities: ['reasoning', 'tool-use', 'long-context'], contextWindow: 131072, reasoningEffort: true },
    // A "Reasoning LLM" with function calling; its card's parameters are not recorded, so no reasoning_effort is sent.
    { id: 'gpt-oss-20b', quality: intelligenceIndex(15.2, 'gpt-oss-20b'), capabilities: ['reasoning', 'tool-use', 'long-context'], contextWindow: 131072 },
    { id: 'Meta-Llama-3_3-70B-Instruct', quality: intelligenceIndex(9.3, 'llama-3-3-instruct-70b'), capabilities: ['tool-use', 'long-context'], contextWindow: 131072 },
    { id: 'Qwen3.5-397B-A17B', quality: intelligenceIndex(34.3, 'qwen3-5-397b-a17b'), capabilities: ['tool-use', 'vision', 'long-context'], contextWindow: 262144 },
    { id: 'Qwen3.6-27B', quality: intelligenceIndex(37.7, 'qwen3-6-27b'), capabilities: ['tool-use', 'vision', 'long-context'], contextWindow: 262144 },
    // "Function calling: No" on the catalog card.
    { id: 'Qwen2.5-VL-72B-Instruct', capabilities: ['vision'], contextWindow: 32768 },
    // On the roster, not on the catalog page: tools and image input are not confirmed.
    { id: 'Mistral-Small-3.2-24B-Instruct-2506', capabilities: ['long-context'], contextWindow: 131072 },
    { id: 'Qwen3-Coder-30B-A3B-Instruct', capabilities: ['long-context'], contextWindow: 262144 },
  ],
  // For calls with a key. A call without one (the caller's `anonymous`) carries no Authorization header at all:
  // Freeway sends it without these headers.
  authHeaders: bearerAuth,
  // The rows are in fixtures.ts.
  errorRules: [
    // GETTING_STARTED: a revoked key answers "403 Forbidden: Authentication Failed".
    { name: 'authentication failed', status: [401, 403], kind: 'invalid_key' },
    // The per-minute limit, with or without a key; OVHcloud documents no body.
    { name: 'per-minute rate limit', status: 429, kind: 'rate_limited' },
    // A model past its 3-month decommission grace period "returns a 404 error for any new requests" (billing guide).
    { name: 'decommissioned model', status: 404, kind: 'model_unavailable' },
  ],
  createModel: (options) => openAICompatibleModel('ovhcloud', options),
  embeddingModels: ovhcloudEmbeddingModels,
  // The embedding cards document `model` and `input` only.
  embeddingOptions: () => undefined,
  createEmbeddingModel: (options) => openAICompatibleEmbeddingModel('ovhcloud', options),
};

export default ovhcloud;
