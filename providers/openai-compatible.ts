import type { OpenAICompatibleProviderSettings } from '@ai-sdk/openai-compatible';
import type { EmbeddingModelV4, LanguageModelV4 } from '@ai-sdk/provider';
import type { Capability, ListedModel, ModelFactoryOptions, ModelListing } from './types.ts';
import { listingEntries } from './listing-entries.ts';

// Token log probabilities in OpenAI's format, read by the chat API's encoders: part of the contract (request-extras.ts).
export { tokenLogprobs, type TokenLogprob } from './request-extras.ts';

/** Per-provider departures from the OpenAI wire format, for providers whose "compatible" API differs. */
export type OpenAICompatibleQuirks = Pick<OpenAICompatibleProviderSettings, 'includeUsage' | 'transformRequestBody' | 'supportsStructuredOutputs'>;

/** `Authorization: Bearer <key>`, how most providers take a key. */
export function bearerAuth(key: string): Record<string, string> {
  return { authorization: `Bearer ${key}` };
}

/** The factory shared by every provider that speaks OpenAI's chat/completions wire format. */
export async function openAICompatibleModel(name: string, options: ModelFactoryOptions, quirks: OpenAICompatibleQuirks = {}): Promise<LanguageModelV4> {
  const { createOpenAICompatible } = await import('@ai-sdk/openai-compatible');
  return createOpenAICompatible({
    name,
    baseURL: options.baseURL,
    fetch: options.fetch,
    includeUsage: true,
    ...quirks,
  }).chatModel(options.modelId);
}

/**
 * The embedding model of a provider that speaks OpenAI's `POST {baseURL}/embeddings`
 * (`{model, input, encoding_format: "float", dimensions?, user?}` in, `data[].embedding` and
 * `usage.prompt_tokens` out). Freeway splits batches itself, by the model's declared `maxBatch`.
 */
export async function openAICompatibleEmbeddingModel(name: string, options: ModelFactoryOptions): Promise<EmbeddingModelV4> {
  const { createOpenAICompatible } = await import('@ai-sdk/openai-compatible');
  return createOpenAICompatible({ name, baseURL: options.baseURL, fetch: options.fetch }).embeddingModel(options.modelId);
}

/**
 * What a model id says of its kind, for listings that do not say it themselves:
 * speech, embedding, moderation, rerank and image models are never routed as chat.
 * A plugin whose listing reports the kind (or that knows better) decides first.
 */
export function kindFromId(id: string): ListedModel['kind'] {
  const name = id.toLowerCase();
  if (/whisper|transcri|(^|[/-])stt([/-]|$)|speech-to-text/.test(name)) return 'transcription';
  if (/embed|(^|[/-])(bge|e5|gte)[-/]|nv-embed|retriev/.test(name)) return 'embedding';
  if (/(^|[/-])tts|text-to-speech|playai|orpheus|guard|moderat|rerank|flux|stable-diffusion|sdxl|dall-e|imagen|image-gen|(^|[/-])ocr([/-]|$)/.test(name)) return 'other';
  return 'chat';
}

/** One entry of an OpenAI-format model list (`data[]`), as far as every such API has it. */
export type OpenAIModelEntry = Readonly<Record<string, unknown>> & { readonly id: string };

/**
 * OpenAI's `GET {baseURL}/models` listing: `{"object": "list", "data": [{"id": ...}]}`.
 * `describe` turns one entry into what Freeway knows of it, or undefined to leave it out.
 */
export function openAIModelListing(source: string, describe: (entry: OpenAIModelEntry) => ListedModel | undefined): ModelListing {
  return {
    source,
    url: (baseURL) => `${baseURL}/models`,
    read(body) {
      const data = body !== null && typeof body === 'object' ? (body as { data?: unknown }).data : undefined;
      if (!Array.isArray(data)) throw new Error('not a model list: no data array');
      const models: ListedModel[] = [];
      for (const entry of listingEntries<OpenAIModelEntry>(data, 'id')) {
        const model = describe(entry);
        if (model) models.push(model);
      }
      return { models };
    },
  };
}

/** A listing's token count (context window, output maximum) when it is a positive whole number; else undefined. */
export function tokenCount(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isSafeInteger(value) && value > 0 ? value : undefined;
}

/** The window from which a listed model joins `free:long-context`, as the curated lists count it. */
export const LONG_CONTEXT_TOKENS = 100_000;

/**
 * A listed model whose entry states its window and output maximum (Groq's `context_window`, SambaNova's and
 * OVHcloud's `context_length`, and `max_completion_tokens`): its kind told by its id, `long-context` from
 * LONG_CONTEXT_TOKENS up, and a count that is not a positive whole number left out.
 */
export function listedWithLimits(id: string, free: boolean, limits: { readonly contextWindow: unknown; readonly maxOutputTokens: unknown }): ListedModel {
  const contextWindow = tokenCount(limits.contextWindow);
  const maxOutputTokens = tokenCount(limits.maxOutputTokens);
  return {
    id,
    kind: kindFromId(id),
    free,
    ...(contextWindow === undefined ? {} : { contextWindow, capabilities: contextWindow >= LONG_CONTEXT_TOKENS ? ['long-context'] : [] }),
    ...(maxOutputTokens === undefined ? {} : { maxOutputTokens }),
  };
}

/** Content-safety classifiers OpenRouter-style lists carry among their text models (nvidia/nemotron-3.5-content-safety:free). */
const safetyClassifier = /content-safety|safeguard/;

/**
 * Free as an OpenRouter-style list shows it: a `:free` variant, or every price of the entry "0" (a router such as
 * openrouter/auto has "-1" prices, which are not zero; a missing or empty pricing object is not free).
 */
function isFreeEntry(id: string, pricing: unknown): boolean {
  if (id.endsWith(':free')) return true;
  if (pricing === null || typeof pricing !== 'object') return false;
  const prices = Object.values(pricing);
  return prices.length > 0 && prices.every((price) => price === '0' || price === 0);
}

/**
 * One entry of an OpenRouter-style model list (https://openrouter.ai/docs/api-reference/models/get-models, which
 * gateways built on OpenRouter, such as Kilo's, answer in the same shape): `context_length`,
 * `architecture.input_modalities` / `output_modalities`, `supported_parameters`, `top_provider.max_completion_tokens`.
 */
export function openRouterStyleModel(entry: OpenAIModelEntry): ListedModel {
  const architecture = (entry.architecture ?? {}) as { input_modalities?: unknown; output_modalities?: unknown };
  const outputs = Array.isArray(architecture.output_modalities) ? architecture.output_modalities : ['text'];
  const inputs = Array.isArray(architecture.input_modalities) ? architecture.input_modalities : [];
  const parameters = Array.isArray(entry.supported_parameters) ? entry.supported_parameters : [];
  const kind = !outputs.includes('text') || safetyClassifier.test(entry.id) ? 'other' : kindFromId(entry.id);
  const contextWindow = tokenCount(entry.context_length);
  const maxOutputTokens = tokenCount((entry.top_provider as { max_completion_tokens?: unknown } | null | undefined)?.max_completion_tokens);
  const capabilities: Capability[] = [];
  if (inputs.includes('image')) capabilities.push('vision');
  if (parameters.includes('tools')) capabilities.push('tool-use');
  if (parameters.includes('reasoning')) capabilities.push('reasoning');
  if (contextWindow !== undefined && contextWindow >= LONG_CONTEXT_TOKENS) capabilities.push('long-context');
  return {
    id: entry.id,
    kind,
    free: isFreeEntry(entry.id, entry.pricing),
    ...(contextWindow === undefined ? {} : { contextWindow }),
    capabilities,
    ...(maxOutputTokens === undefined ? {} : { maxOutputTokens }),
  };
}
