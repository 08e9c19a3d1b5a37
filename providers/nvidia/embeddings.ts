import type { EmbeddingModelV4 } from '@ai-sdk/provider';
import { openAICompatibleEmbeddingModel } from '../openai-compatible.ts';
import type { EmbeddingCallExtras, EmbeddingModelSpec, FetchFunction, ModelFactoryOptions } from '../types.ts';

/**
 * NVIDIA's API catalog serves OpenAI's `POST /v1/embeddings`, with an `input_type` (`query` or
 * `passage`) that its E5 and NV-Embed-QA models require
 * (https://docs.nvidia.com/nim/nemo-retriever/text-embedding/latest/reference.html, checked
 * 2026-11-25). `baai/bge-m3` (https://build.nvidia.com/baai/bge-m3) is BAAI's bge-m3, the same
 * weights as Workers AI's and DeepInfra's. `nvidia/nv-embedqa-e5-v5` is marked deprecated on
 * https://build.nvidia.com/nvidia/nv-embedqa-e5-v5: pinnable, in no alias. NVIDIA states no batch
 * size for the hosted API; 50 is what its own LangChain client sends (langchain-nvidia-ai-endpoints,
 * `_DEFAULT_BATCH_SIZE`).
 */
export const nvidiaEmbeddingModels: readonly EmbeddingModelSpec[] = [
  {
    id: 'baai/bge-m3',
    family: { id: 'bge-m3', source: 'https://build.nvidia.com/baai/bge-m3' },
    maxBatch: 50,
    contextWindow: 8192,
    defaultDimensions: 1024,
    tokenInput: false,
  },
  {
    id: 'nvidia/nv-embedqa-e5-v5',
    family: { id: 'nv-embedqa-e5-v5', source: 'https://build.nvidia.com/nvidia/nv-embedqa-e5-v5' },
    maxBatch: 50,
    contextWindow: 512,
    defaultDimensions: 1024,
    tokenInput: false,
    deprecated: true,
  },
];

/** Models that embed queries and passages differently and refuse a call without `input_type`. */
const needsInputType = new Set(['nvidia/nv-embedqa-e5-v5']);

/** Carries `input_type` from the call's headers into the JSON body, where NVIDIA reads it. */
const inputTypeHeader = 'x-freeway-input-type';

function withInputTypeInBody(fetch: FetchFunction | undefined): FetchFunction {
  return (input, init) => {
    const { [inputTypeHeader]: inputType, ...headers } = (init?.headers ?? {}) as Record<string, string>;
    if (!inputType || typeof init?.body !== 'string') return (fetch ?? globalThis.fetch)(input, { ...init, headers });
    const body = { ...(JSON.parse(init.body) as Record<string, unknown>), input_type: inputType };
    return (fetch ?? globalThis.fetch)(input, { ...init, headers, body: JSON.stringify(body) });
  };
}

/**
 * `user` as OpenAI's body field; `inputType` for the models that need it, `passage` when the
 * caller sent no `input_type` (documents are what most embedding calls carry).
 */
export function nvidiaEmbeddingOptions(spec: EmbeddingModelSpec, { user, inputType }: EmbeddingCallExtras): Record<string, string> | undefined {
  const options: Record<string, string> = {};
  if (user !== undefined) options.user = user;
  if (needsInputType.has(spec.id)) options.inputType = inputType ?? 'passage';
  return Object.keys(options).length === 0 ? undefined : options;
}

export async function createNvidiaEmbeddingModel(options: ModelFactoryOptions): Promise<EmbeddingModelV4> {
  const inner = await openAICompatibleEmbeddingModel('nvidia', { ...options, fetch: withInputTypeInBody(options.fetch) });
  return {
    specificationVersion: 'v4',
    provider: inner.provider,
    modelId: inner.modelId,
    maxEmbeddingsPerCall: inner.maxEmbeddingsPerCall,
    supportsParallelCalls: inner.supportsParallelCalls,
    doEmbed({ providerOptions, headers, ...call }) {
      const { inputType, ...rest } = (providerOptions?.nvidia ?? {}) as { inputType?: unknown };
      const withType = typeof inputType === 'string' ? { ...headers, [inputTypeHeader]: inputType } : headers;
      return inner.doEmbed({ ...call, headers: withType, providerOptions: { nvidia: rest } });
    },
  };
}
