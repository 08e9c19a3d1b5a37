import { bearerAuth, openAICompatibleModel } from '../openai-compatible.ts';
import type { ProviderPlugin } from '../types.ts';
import { intelligenceIndex } from '../quality.ts';

/** The text-model pricing table that marks GLM-4.7-Flash and GLM-4.6V-Flash "Free" (read 2026-11-27). */
const PRICING = 'https://docs.z.ai/guides/overview/pricing';

/**
 * How long a key waits after a 1302 answer. The free Flash models take one request at a time per key
 * ("API usage is limited by concurrency (i.e., the number of in-flight requests)",
 * https://z.ai/manage-apikey/rate-limits): the slot is free again as soon as the request in flight
 * ends, so this is a short pause, not a spent quota.
 */
export const CONCURRENCY_WAIT_MS = 5_000;

const zai: ProviderPlugin = {
  id: 'zai',
  name: 'Z.AI',
  header: 'X-Zai-Key',
  // An API key is `<id>.<secret>` (the JWT example of https://docs.z.ai/guides/develop/http/introduction splits it
  // at the dot), publicly shown as 32 hexadecimal characters, a dot and 16 letters and digits.
  keyPatterns: [/\b[0-9a-f]{32}\.[A-Za-z0-9]{16}\b/],
  // The pattern's literal start says nothing to a person: the two parts as they look.
  keyHint: '32 hex digits, a dot, 16 letters and digits',
  // The general (pay-as-you-go) endpoint; GLM Coding Plan keys use /api/coding/paas/v4 instead
  // (https://docs.z.ai/guides/develop/http/introduction, read 2026-11-27).
  baseURL: 'https://api.z.ai/api/paas/v4',
  keyUrl: 'https://z.ai/manage-apikey/apikey-list',
  // The Flash models cost nothing ("Free" input, cached input and output on the pricing page), within a
  // per-model concurrency limit. Other models draw on a prepaid balance.
  tier: { tier: 'free with limits', source: PRICING, checked: '2026-11-27' },
  // Sign-up and a key need no card: the catalog of xyzs996/free-llm-api (week of 2026-07-25, each entry checked
  // against the provider's pages) lists Z.AI Open Platform with "Card: Not required".
  signUp: { cardRequired: false, source: 'https://github.com/xyzs996/free-llm-api', checked: '2026-11-27' },
  priority: 47,
  // Checked 2026-11-27 against the pricing page (as of 2026-01-24, the copy in quantmind-br/library-docs) and the
  // chat-completion reference (https://docs.z.ai/api-reference/llm/chat-completion). Still free in September 2026:
  // a free account answers only on GLM 4.7 Flash (Ryosuke-Asano/zai-provider-extension#20, 2026-09-13); Flash is
  // listed as a free model with one concurrent request in mnfst/awesome-free-llm-apis (data of 2026-10-05).
  // GLM-4.5-Flash is left out: its retirement is announced (mnfst/awesome-free-llm-apis#59), with no date from Z.AI.
  // No listing: Z.AI documents no model list endpoint. No reasoningEffort: GLM-4.x thinking is a switch
  // (`thinking.type` enabled | disabled), not an effort level.
  models: [
    // 200K context (Z.AI's deployment as AI gateways list it: vercel.com/ai-gateway/models/glm-4.7-flash, and
    // anomalyco/models.dev providers/zai/models/glm-4.7-flash.toml); "the GLM-4.7 GLM-4.6 series supports 128K maximum
    // output" (max_tokens up to 131072, chat-completion reference). Thinking is on by default; tools are taken.
    // concurrency 1: "API usage is limited by concurrency (i.e., the number of in-flight requests)"
    // (https://z.ai/manage-apikey/rate-limits, read 2026-12-01), whose default per-model figure is one request
    // (https://rate-limits.apis.io/rate-limits/zhipu-ai/zhipu-ai-rate-limits/, "API Default Concurrency: 1", read
    // 2026-12-01); one concurrent request for Flash in mnfst/awesome-free-llm-apis (data of 2026-10-05).
    { id: 'glm-4.7-flash', concurrency: 1, quality: intelligenceIndex(23.3, 'glm-4-7-flash'), capabilities: ['fast', 'reasoning', 'tool-use', 'long-context'], contextWindow: 200_000, maxOutputTokens: 131_072 },
    // "GLM-4.6V-Flash: Lightweight, Completely Free", video, image, text and file in, 128K context
    // (https://docs.z.ai/guides/vlm/glm-4.6v); tools are taken by the GLM-4.6V series. The reference says the series
    // "supports 32K maximum output" but bounds the vision request's max_tokens at 16384: the bound is used.
    { id: 'glm-4.6v-flash', concurrency: 1, capabilities: ['fast', 'vision', 'tool-use', 'long-context'], contextWindow: 128_000, maxOutputTokens: 16_384 },
  ],
  authHeaders: bearerAuth,
  // Z.AI names the end user `user_id` (6 to 128 characters) and documents no parallel-call switch or logprobs.
  providerOptions: ({ user }) => (user !== undefined && user.length >= 6 && user.length <= 128 ? { user_id: user } : undefined),
  // https://docs.z.ai/api-reference/api-code (read 2026-11-27): an HTTP status outside, a business code in `error.code`
  // inside; the rows are in fixtures.ts. The business code decides, not the HTTP status: 429 stands for a full
  // concurrency slot, an empty balance and an overloaded service alike.
  errorRules: [
    // "High concurrency usage of this API, please reduce concurrency": the one request in flight has not ended yet.
    { name: 'concurrency limit (1302)', status: 429, code: 1302, kind: 'rate_limited', retryAt: (_answer, now) => now + CONCURRENCY_WAIT_MS },
    // "The service may be temporarily overloaded, please try again later": Z.AI's capacity, not the key's quota.
    { name: 'service overloaded (1305)', status: [429, 503], code: 1305, kind: 'server' },
    // "Insufficient balance or no resource package": the key has no balance for a paid model. The free Flash models
    // need none and keep answering with the same key, so this is about the model, not the key.
    { name: 'no balance for this model (1113)', status: 429, code: 1113, kind: 'model_unavailable' },
    { name: 'unknown model (1211)', status: 400, code: 1211, kind: 'model_unavailable' },
    { name: 'prompt exceeds max length (1261)', status: 400, code: 1261, kind: 'context_too_long' },
    // 1000-1004: the token is missing, invalid or expired; some keys get `"code": "401"`.
    { name: 'authentication failed', status: 401, kind: 'invalid_key' },
  ],
  createModel: (options) => openAICompatibleModel('zai', options),
};

export default zai;
