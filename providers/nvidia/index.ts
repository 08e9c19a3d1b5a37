import { bearerAuth, kindFromId, openAIModelListing, openAICompatibleModel } from '../openai-compatible.ts';
import type { ListedModel, ProviderPlugin } from '../types.ts';
import { createNvidiaEmbeddingModel, nvidiaEmbeddingModels, nvidiaEmbeddingOptions } from './embeddings.ts';
import { intelligenceIndex } from '../quality.ts';

/**
 * NVIDIA's catalog also lists hosted models that take no chat: detectors, PII
 * taggers, content-safety and reward models, document parsers, CLIP. The
 * generic id rules miss these names.
 */
const notChat = /safety|reward|detector|gliner|(^|[/-])pii([/-]|$)|parse|clip([/-]|$)|cosmos-(predict|transfer)/;

function kindOf(id: string): ListedModel['kind'] {
  const kind = kindFromId(id);
  return kind === 'chat' && notChat.test(id.toLowerCase()) ? 'other' : kind;
}

const nvidia: ProviderPlugin = {
  id: 'nvidia',
  name: 'NVIDIA',
  header: 'X-Nvidia-Key',
  keyPatterns: [/nvapi-[A-Za-z0-9_-]+/],
  baseURL: 'https://integrate.api.nvidia.com/v1',
  keyUrl: 'https://build.nvidia.com/settings/api-keys',
  // The API catalog's hosted endpoints are free to call with a developer key (NVIDIA API
  // Trial Terms), rate limited per account (40 requests per minute by default); the catalog
  // marks them "Free Endpoint". NVIDIA staff ended the credit system in 2026 (see
  // https://github.com/steipete/CodexBar/issues/2498).
  tier: { tier: 'free with limits', source: 'https://build.nvidia.com/models?filters=nimType%3Anim_type_preview', checked: '2026-11-27' },
  // Joining the NVIDIA Developer Program takes "no card" (Rekin226/aquascope#331, checked 2026-09-02); a key does ask
  // for a verified phone number (HakAl/scrappy#7, NVIDIA/NemoClaw#201).
  signUp: { cardRequired: false, source: 'https://github.com/Rekin226/aquascope/issues/331', checked: '2026-11-27' },
  // OpenAI's list format. It can keep listing a model that already answers 410 Gone
  // (https://github.com/NVIDIA/NemoClaw/issues/11902); the quarantine takes care of those.
  // A developer key calls every hosted model at no charge, so each listed model is free.
  listing: openAIModelListing('https://docs.api.nvidia.com/nim/reference/llm-apis', (entry) => ({ id: entry.id, kind: kindOf(entry.id), free: true })),
  priority: 80,
  // Checked on 2026-11-25 against the retirements users report from integrate.api.nvidia.com
  // (410 Gone "has reached its end of life", or absent from the authenticated GET /v1/models),
  // each cited below, and the live model list quoted in https://github.com/NVIDIA/NemoClaw/issues/2703.
  // NVIDIA does not publish trial context windows: 131072 is a floor for the DeepSeek V4 releases.
  models: [
    { id: 'deepseek-ai/deepseek-v4-flash-0731', quality: intelligenceIndex(51.8, 'deepseek-v4-flash'), capabilities: ['reasoning', 'tool-use', 'long-context'], contextWindow: 131072 },
    { id: 'deepseek-ai/deepseek-v4-pro-0813', quality: intelligenceIndex(53.2, 'deepseek-v4-pro'), capabilities: ['reasoning', 'tool-use', 'long-context'], contextWindow: 131072 },
    { id: 'mistralai/mistral-nemotron', capabilities: ['tool-use', 'fast', 'long-context'], contextWindow: 131072 },
    { id: 'nvidia/nemotron-3-super-120b-a12b', quality: intelligenceIndex(25.7, 'nvidia-nemotron-3-super-120b-a12b'), capabilities: ['reasoning', 'tool-use', 'long-context'], contextWindow: 262144 },
    { id: 'nvidia/nemotron-3-nano-30b-a3b', quality: intelligenceIndex(7.2, 'nvidia-nemotron-3-nano-30b-a3b'), capabilities: ['fast', 'tool-use', 'long-context'], contextWindow: 262144 },
    { id: 'meta/llama-3.3-70b-instruct', quality: intelligenceIndex(9.3, 'llama-3-3-instruct-70b'), capabilities: ['fast', 'tool-use', 'long-context'], contextWindow: 131072 },
    {
      id: 'deepseek-ai/deepseek-v4-pro',
      capabilities: ['reasoning', 'tool-use', 'long-context'],
      contextWindow: 131072,
      deprecated: true,
      // 410: "has reached its end of life on 2026-08-07T09:00:00Z"; replaced by deepseek-v4-pro-0813.
      retired: { date: '2026-08-07', source: 'https://github.com/NVIDIA/NemoClaw/issues/11902' },
    },
    {
      id: 'deepseek-ai/deepseek-v4-flash',
      capabilities: ['reasoning', 'tool-use', 'long-context'],
      contextWindow: 131072,
      deprecated: true,
      // 410 Gone first seen on 2026-08-12; renamed deepseek-v4-flash-0731 (https://github.com/MauroDruwel/NIMStats/pull/30).
      retired: { date: '2026-08-12', source: 'https://github.com/BlockRunAI/awesome-blockrun/pull/43' },
    },
    {
      id: 'z-ai/glm-5.2',
      capabilities: ['reasoning', 'tool-use', 'long-context'],
      contextWindow: 262144,
      deprecated: true,
      // Absent from the authenticated /v1/models on 2026-08-25; a chat call answers 410 with an
      // end-of-life message (https://github.com/openclaw/openclaw/issues/149927).
      retired: { date: '2026-08-25', source: 'https://github.com/NVIDIA/NemoClaw/issues/10222' },
    },
    {
      id: 'minimaxai/minimax-m3',
      capabilities: ['reasoning', 'tool-use', 'long-context'],
      contextWindow: 131072,
      deprecated: true,
      // Absent from the live NVIDIA Endpoints model list on 2026-09-10.
      retired: { date: '2026-09-10', source: 'https://github.com/NVIDIA/NemoClaw/issues/11364' },
    },
    {
      id: 'moonshotai/kimi-k2.6',
      capabilities: ['reasoning', 'tool-use', 'long-context'],
      contextWindow: 262144,
      deprecated: true,
      // Still listed, but its route answers 404 (NVIDIA's own NemoClaw retired it from NVIDIA Endpoints).
      retired: { date: '2026-07-08', source: 'https://github.com/NVIDIA/NemoClaw/pull/6475' },
    },
  ],
  authHeaders: bearerAuth,
  // Problem-details answers ({status, title, detail}) of NVIDIA's API catalog; the rows are in fixtures.ts.
  errorRules: [
    { name: 'invalid or unauthorized key', status: [401, 403], kind: 'invalid_key' },
    { name: 'model not found, or not served for this account', status: 404, kind: 'model_unavailable' },
    { name: 'model reached its end of life (410 Gone)', status: 410, kind: 'model_unavailable' },
    { name: 'rate limited', status: 429, kind: 'rate_limited' },
    { name: 'context length exceeded', status: 400, body: /maximum context length/i, kind: 'context_too_long' },
  ],
  logprobs: true,
  createModel: (options) => openAICompatibleModel('nvidia', options),
  embeddingModels: nvidiaEmbeddingModels,
  createEmbeddingModel: createNvidiaEmbeddingModel,
  embeddingOptions: nvidiaEmbeddingOptions,
};

export default nvidia;
