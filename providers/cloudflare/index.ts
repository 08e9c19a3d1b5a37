import { kindFromId, openAICompatibleModel, tokenCount, LONG_CONTEXT_TOKENS } from '../openai-compatible.ts';
import { nextUtcMidnight } from '../resets.ts';
import type { Capability, ListedModel, ListingPage, ModelListing, ProviderPlugin } from '../types.ts';
import { accountIdPattern, accountPlaceholder, cloudflareAuth, splitKey, withAccountInPath } from './account.ts';
import { cloudflareEmbeddingModels, createCloudflareEmbeddingModel } from './embeddings.ts';
import { cloudflareTranscriptionModels, createCloudflareTranscriptionModel } from './transcriptions.ts';
import { listingEntries } from '../listing-entries.ts';

/** One `result[]` entry of the Workers AI model search, as far as Freeway reads it. */
interface SearchEntry {
  readonly name?: unknown;
  readonly task?: { readonly name?: unknown };
  readonly properties?: unknown;
  readonly deprecated?: unknown;
}

const searchPageSize = 50;
/** A catalog of 1000 models is far beyond today's (about 100): stop paging there. */
const searchMaxPages = 20;

/** `properties` is a list of `{property_id, value}`; values are strings ("true", "131072") or JSON. */
function properties(entry: SearchEntry): Map<string, unknown> {
  const found = new Map<string, unknown>();
  if (!Array.isArray(entry.properties)) return found;
  for (const property of entry.properties as unknown[]) {
    if (property === null || typeof property !== 'object') continue;
    const { property_id: id, value } = property as { property_id?: unknown; value?: unknown };
    if (typeof id === 'string') found.set(id, value);
  }
  return found;
}

const isTrue = (value: unknown): boolean => value === true || value === 'true';

function kindOf(name: string, task: unknown): ListedModel['kind'] {
  switch (task) {
    case 'Text Generation':
      // Llama Guard and other classifiers are "Text Generation" too; the id rules catch them.
      return kindFromId(name);
    case 'Text Embeddings':
      return 'embedding';
    case 'Automatic Speech Recognition':
      return 'transcription';
    default:
      return 'other';
  }
}

function describe(entry: SearchEntry): ListedModel | undefined {
  if (typeof entry.name !== 'string') return undefined;
  const props = properties(entry);
  const kind = kindOf(entry.name, entry.task?.name);
  // The daily free allocation covers every model but those marked for the Workers Paid plan.
  const free = !isTrue(props.get('require_workers_paid')) && entry.deprecated !== true;
  const window = Number(props.get('context_window'));
  const contextWindow = tokenCount(window);
  const capabilities: Capability[] = [];
  if (isTrue(props.get('function_calling'))) capabilities.push('tool-use');
  if (isTrue(props.get('reasoning'))) capabilities.push('reasoning');
  if (isTrue(props.get('vision'))) capabilities.push('vision');
  if (contextWindow !== undefined && contextWindow >= LONG_CONTEXT_TOKENS) capabilities.push('long-context');
  return { id: entry.name, kind, free, ...(contextWindow === undefined ? {} : { contextWindow }), ...(capabilities.length > 0 ? { capabilities } : {}) };
}

/**
 * Workers AI's model search under the caller's account, paged with `page` and
 * `per_page`; a full page means there may be another.
 */
const modelSearch: ModelListing = {
  source: 'https://developers.cloudflare.com/api/resources/ai/subresources/models/methods/list/',
  url(baseURL, key, page) {
    const parts = splitKey(key);
    if (!parts || !accountIdPattern.test(parts.accountId)) throw new Error('X-Cloudflare-Key must have the form account_id:api_token.');
    return `${baseURL}/accounts/${encodeURIComponent(parts.accountId)}/ai/models/search?per_page=${searchPageSize}&page=${page ?? '1'}`;
  },
  read(body): ListingPage {
    const { result, result_info: info } = (body !== null && typeof body === 'object' ? body : {}) as { result?: unknown; result_info?: { page?: unknown } };
    if (!Array.isArray(result)) throw new Error('not a Workers AI model search answer: no result array');
    const models: ListedModel[] = [];
    for (const entry of listingEntries<SearchEntry>(result as unknown[], 'name')) {
      const model = describe(entry);
      if (model) models.push(model);
    }
    const page = typeof info?.page === 'number' && Number.isInteger(info.page) ? info.page : 1;
    const more = result.length >= searchPageSize && page < searchMaxPages;
    return more ? { models, next: String(page + 1) } : { models };
  },
};

const cloudflare: ProviderPlugin = {
  id: 'cloudflare',
  name: 'Cloudflare',
  header: 'X-Cloudflare-Key',
  keyPatterns: [/\bCF[A-Za-z0-9_-]{8,}/],
  // The header carries the account id and an API token (checkKey below), not a token alone.
  keyHint: 'account_id:api_token',
  baseURL: 'https://api.cloudflare.com/client/v4',
  keyUrl: 'https://dash.cloudflare.com/profile/api-tokens',
  // "Our free allocation allows anyone to use a total of 10,000 Neurons per day at no charge",
  // on the Workers Free plan too; all limits reset daily at 00:00 UTC. Since 2026-07-28 a few
  // models require the Workers Paid plan (the model search marks them require_workers_paid).
  tier: { tier: 'free with limits', source: 'https://developers.cloudflare.com/workers-ai/platform/pricing/', checked: '2026-11-27' },
  // "10,000 Neurons/day free, no credit card required" (a list that takes only free tiers without a card, data.json of
  // 2026-10-05); Cloudflare's own pages do not say it in words.
  signUp: { cardRequired: false, source: 'https://github.com/mnfst/awesome-free-llm-apis/blob/010fa9a482bca94e7061a947005ca78b112d75e6/data.json', checked: '2026-11-27' },
  listing: modelSearch,
  priority: 70,
  // Checked on 2026-11-25 against the Workers AI model catalog (the model search entries the
  // docs are built from, https://developers.cloudflare.com/workers-ai/models/), the planned
  // deprecations of 2026-05-30 (none of these is among them,
  // https://developers.cloudflare.com/changelog/post/2026-05-08-planned-model-deprecations/) and the
  // models that left the Workers Free plan on 2026-07-28
  // (https://developers.cloudflare.com/changelog/post/2026-07-28-models-require-workers-paid/).
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
    // The catalog's id for Nemotron 3 Super (the plugin had @cf/nvidia/nemotron-3-super-120b-a12b, which Workers AI never served).
    { id: '@cf/nvidia/nemotron-3-120b-a12b', capabilities: ['reasoning', 'tool-use', 'long-context'], contextWindow: 256000, reasoningEffort: true },
    { id: '@cf/google/gemma-4-26b-a4b-it', capabilities: ['tool-use', 'long-context'], contextWindow: 256000 },
    { id: '@cf/openai/gpt-oss-120b', capabilities: ['tool-use', 'reasoning', 'long-context'], contextWindow: 128000 },
    { id: '@cf/openai/gpt-oss-20b', capabilities: ['fast', 'tool-use', 'long-context'], contextWindow: 128000 },
    // The recommended free replacement for the models deprecated on 2026-05-30: 131072 tokens, tool calls,
    // reasoning_effort low | medium | high in its schema.
    { id: '@cf/zai-org/glm-4.7-flash', capabilities: ['fast', 'reasoning', 'tool-use', 'long-context'], contextWindow: 131072, reasoningEffort: true },
    { id: '@cf/aisingapore/gemma-sea-lion-v4-27b-it', capabilities: ['tool-use', 'long-context'], contextWindow: 128000 },
    { id: '@cf/ibm-granite/granite-4.0-h-micro', capabilities: ['tool-use', 'long-context'], contextWindow: 131072 },
    // Workers Paid only since 2026-07-28: a free-plan key gets 403 (5035). Pinnable by paid accounts.
    {
      id: '@cf/moonshotai/kimi-k2.7-code',
      capabilities: ['tool-use', 'long-context'],
      contextWindow: 262144,
      deprecated: true,
      retired: { date: '2026-07-28', source: 'https://developers.cloudflare.com/changelog/post/2026-07-28-models-require-workers-paid/' },
    },
    {
      id: '@cf/zai-org/glm-5.2',
      capabilities: ['reasoning', 'tool-use', 'long-context'],
      contextWindow: 262144,
      deprecated: true,
      retired: { date: '2026-07-28', source: 'https://developers.cloudflare.com/changelog/post/2026-07-28-models-require-workers-paid/' },
    },
  ],
  // https://developers.cloudflare.com/workers-ai/platform/errors/ (internal codes in the v4
  // error envelope); the rows are in fixtures.ts.
  errorRules: [
    // "All limits reset daily at 00:00 UTC" (Workers AI pricing).
    { name: 'daily free allocation used up (3036)', status: 429, code: 3036, kind: 'rate_limited', retryAt: (_answer, now) => nextUtcMidnight(now) },
    { name: 'out of capacity (3040)', status: 429, code: 3040, kind: 'server' },
    { name: 'no such model (5007)', status: 400, code: 5007, kind: 'model_unavailable' },
    { name: 'invalid model id (3042)', status: 404, kind: 'model_unavailable' },
    { name: 'request too large (3006)', status: 413, kind: 'context_too_long' },
    { name: 'authentication error (10000)', status: 401, kind: 'invalid_key' },
    // Before the 403 rule below: this one is about the model, not the key.
    { name: 'model needs the Workers Paid plan (5035)', status: 403, code: 5035, kind: 'model_unavailable' },
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
