import { openAICompatibleModel } from '../openai-compatible.ts';
import { nextUtcMidnight } from '../resets.ts';
import type { ProviderPlugin } from '../types.ts';
import { accountIdPattern, accountPlaceholder, cloudflareAuth, splitKey, withAccountInPath } from './account.ts';
import { cloudflareEmbeddingModels, createCloudflareEmbeddingModel } from './embeddings.ts';
import { cloudflareTranscriptionModels, createCloudflareTranscriptionModel } from './transcriptions.ts';

const cloudflare: ProviderPlugin = {
  id: 'cloudflare',
  name: 'Cloudflare',
  header: 'X-Cloudflare-Key',
  keyPatterns: [/\bCF[A-Za-z0-9_-]{8,}/],
  baseURL: 'https://api.cloudflare.com/client/v4',
  keyUrl: 'https://dash.cloudflare.com/profile/api-tokens',
  // Preliminary: to be checked against the source page.
  tier: { tier: 'free with limits', source: 'https://developers.cloudflare.com/workers-ai/platform/pricing/', checked: '2026-11-25' },
  priority: 70,
  models: [
    { id: '@cf/meta/llama-3.3-70b-instruct-fp8-fast', capabilities: ['fast', 'tool-use'], contextWindow: 24000 },
    { id: '@cf/meta/llama-3.1-8b-instruct-fp8', capabilities: ['fast', 'tool-use'], contextWindow: 32000 },
    { id: '@cf/meta/llama-4-scout-17b-16e-instruct', capabilities: ['fast', 'tool-use', 'long-context'], contextWindow: 131072 },
    { id: '@cf/meta/llama-3.2-11b-vision-instruct', capabilities: ['vision', 'tool-use', 'long-context'], contextWindow: 128000 },
    { id: '@cf/meta/llama-3.2-3b-instruct', capabilities: ['fast'], contextWindow: 80000 },
    { id: '@cf/mistralai/mistral-small-3.1-24b-instruct', capabilities: ['fast', 'tool-use', 'long-context'], contextWindow: 128000 },
    { id: '@cf/qwen/qwen2.5-coder-32b-instruct', capabilities: ['fast', 'tool-use'], contextWindow: 33000 },
    { id: '@cf/qwen/qwq-32b', capabilities: ['reasoning'], contextWindow: 24000 },
    { id: '@cf/qwen/qwen3-30b-a3b-fp8', capabilities: ['fast', 'tool-use'], contextWindow: 33000 },
    { id: '@cf/deepseek-ai/deepseek-r1-distill-qwen-32b', capabilities: ['reasoning'], contextWindow: 80000 },
    { id: '@cf/nvidia/nemotron-3-super-120b-a12b', capabilities: ['tool-use', 'long-context'], contextWindow: 256000 },
    { id: '@cf/google/gemma-4-26b-a4b-it', capabilities: ['tool-use', 'long-context'], contextWindow: 256000 },
    { id: '@cf/openai/gpt-oss-120b', capabilities: ['tool-use', 'reasoning', 'long-context'], contextWindow: 128000 },
    { id: '@cf/openai/gpt-oss-20b', capabilities: ['fast', 'tool-use', 'long-context'], contextWindow: 128000 },
    { id: '@cf/moonshotai/kimi-k2.7-code', capabilities: ['tool-use', 'long-context'], contextWindow: 262144 },
    { id: '@cf/zai-org/glm-5.2', capabilities: ['reasoning', 'tool-use', 'long-context'], contextWindow: 262144 },
    { id: '@cf/aisingapore/gemma-sea-lion-v4-27b-it', capabilities: ['tool-use', 'long-context'], contextWindow: 128000 },
    { id: '@cf/ibm-granite/granite-4.0-h-micro', capabilities: ['tool-use', 'long-context'], contextWindow: 131072 },
    { id: '@cf/meta/llama-guard-3-8b', capabilities: ['tool-use', 'long-context'], contextWindow: 131072 },
  ],
  // https://developers.cloudflare.com/workers-ai/platform/errors/ (internal codes in the v4
  // error envelope); the rows are in fixtures.ts.
  errorRules: [
    // "All limits reset daily at 00:00 UTC" (Workers AI pricing).
    { name: 'daily free allocation used up (3036)', status: 429, body: /"code":\s*3036|daily free allocation/, kind: 'rate_limited', retryAt: (_answer, now) => nextUtcMidnight(now) },
    { name: 'out of capacity (3040)', status: 429, body: /"code":\s*3040|No more data centers/, kind: 'server' },
    { name: 'no such model (5007)', status: 400, body: /"code":\s*5007|No such model/, kind: 'model_unavailable' },
    { name: 'invalid model id (3042)', status: 404, kind: 'model_unavailable' },
    { name: 'request too large (3006)', status: 413, kind: 'context_too_long' },
    { name: 'authentication error (10000)', status: 401, kind: 'invalid_key' },
    { name: 'account blocked or not allowed (3023, 3041, 5018)', status: 403, kind: 'invalid_key' },
  ],
  checkKey(value) {
    const parts = splitKey(value);
    if (!parts) return 'X-Cloudflare-Key must have the form account_id:api_token.';
    // The account id goes into the upstream path: anything but an account id could redirect the call.
    if (!accountIdPattern.test(parts.accountId)) return 'X-Cloudflare-Key: the account id must be 32 hexadecimal characters.';
    return undefined;
  },
  authHeaders: cloudflareAuth,
  createModel: ({ modelId, baseURL, fetch }) =>
    openAICompatibleModel('cloudflare', { modelId, baseURL: `${baseURL}${accountPlaceholder}ai/v1`, fetch: withAccountInPath(fetch) }),
  embeddingModels: cloudflareEmbeddingModels,
  createEmbeddingModel: createCloudflareEmbeddingModel,
  transcriptionModels: cloudflareTranscriptionModels,
  createTranscriptionModel: createCloudflareTranscriptionModel,
  // Workers AI's Whisper takes no temperature.
  transcriptionOptions: ({ language, prompt }) => ({ ...(language === undefined ? {} : { language }), ...(prompt === undefined ? {} : { prompt }) }),
};

export default cloudflare;
