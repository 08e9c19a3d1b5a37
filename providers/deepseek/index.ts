import { bearerAuth, kindFromId, openAICompatibleModel, openAIModelListing } from '../openai-compatible.ts';
import type { ProviderPlugin } from '../types.ts';

/**
 * DeepSeek's first-call page: "The legacy names deepseek-v4-flash and deepseek-v4-flash-vision-exp are still accepted,
 * but the corresponding models have been retired"; from 2026-09-14 "requests to deepseek-v4-pro will all be routed to
 * V4.1 Flash" (quoted in EvoScientist/EvoScientist#483).
 */
const V41_FLASH = 'https://api-docs.deepseek.com/';
/** The retirement of the deepseek-chat and deepseek-reasoner names, as announced with V4 (quoted in arikusi/deepseek-mcp-server v2.0.0). */
const CHAT_RETIRED = 'https://github.com/arikusi/deepseek-mcp-server/releases/tag/v2.0.0';

const deepseek: ProviderPlugin = {
  id: 'deepseek',
  name: 'DeepSeek',
  header: 'X-Deepseek-Key',
  keyPatterns: [],
  baseURL: 'https://api.deepseek.com/v1',
  keyUrl: 'https://platform.deepseek.com/api_keys',
  // Prepaid balance only: every call is billed per token, and an empty balance answers 402 Insufficient Balance.
  tier: { tier: 'paid only', source: 'https://api-docs.deepseek.com/quick_start/pricing', checked: '2026-11-27' },
  // No signUp: a key's calls need a topped-up balance, but the top-up page takes Alipay, WeChat Pay or a bank card
  // (cn-scuo-oo/dsh-deepseek-quota, 2026-08-15), and no source says whether sign-up asks for a card.
  // GET /models lists id, object and owned_by only (https://api-docs.deepseek.com/api/list-models). Nothing is free.
  listing: openAIModelListing('https://api-docs.deepseek.com/api/list-models', (entry) => ({ id: entry.id, kind: kindFromId(entry.id), free: false })),
  priority: 120,
  // Checked 2026-11-25 against https://api-docs.deepseek.com/quick_start/pricing and https://api-docs.deepseek.com/
  // (both quoted, as of September 2026, in futuregene/future-os#539, EvoScientist/EvoScientist#483 and Zoo-Code-Org/Zoo-Code#1659).
  models: [
    // DeepSeek-V4.1-Flash: 1M context, at most 384K output, tool calls, vision, thinking by default.
    { id: 'deepseek-flash', capabilities: ['fast', 'reasoning', 'tool-use', 'long-context', 'vision'], contextWindow: 1_000_000, maxOutputTokens: 384_000 },
    // Legacy names, still accepted, whose models are retired: their calls are served (and billed) as deepseek-flash.
    { id: 'deepseek-v4-flash', capabilities: ['fast', 'tool-use', 'long-context'], contextWindow: 1_000_000, deprecated: true, retired: { date: '2026-09-10', source: V41_FLASH } },
    { id: 'deepseek-v4-pro', capabilities: ['reasoning', 'tool-use', 'long-context'], contextWindow: 1_000_000, deprecated: true, retired: { date: '2026-09-14', source: V41_FLASH } },
    { id: 'deepseek-chat', capabilities: ['fast', 'tool-use', 'long-context'], contextWindow: 131072, deprecated: true, retired: { date: '2026-07-24', source: CHAT_RETIRED } },
    { id: 'deepseek-reasoner', capabilities: ['reasoning', 'tool-use', 'long-context'], contextWindow: 131072, deprecated: true, retired: { date: '2026-07-24', source: CHAT_RETIRED } },
  ],
  authHeaders: bearerAuth,
  // https://api-docs.deepseek.com/quick_start/error_codes; the rows are in fixtures.ts.
  errorRules: [
    { name: 'authentication fails', status: 401, kind: 'invalid_key' },
    { name: 'insufficient balance', status: 402, kind: 'no_credit' },
    { name: 'rate limit reached', status: 429, kind: 'rate_limited' },
    { name: 'model does not exist', status: 400, body: /Model Not Exist/i, kind: 'model_unavailable' },
    { name: 'context length exceeded', status: 400, body: /maximum context length/i, kind: 'context_too_long' },
  ],
  logprobs: true,
  createModel: (options) => openAICompatibleModel('deepseek', options),
};

export default deepseek;
