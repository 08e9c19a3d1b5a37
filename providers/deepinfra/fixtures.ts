import type { ProviderFixtures } from '../types.ts';

const fixtures: ProviderFixtures = {
  sampleKey: 'Mn4Bv9Cx2Zl7Kj3Hg8Fd5Sa1Qw6Er0TyUi',
  errors: [
    {
      source: 'https://deepinfra.com/docs/openai_api (OpenAI-compatible errors); body quoted in https://github.com/xtekky/gpt4free/issues/3446',
      name: 'invalid API key',
      status: 401,
      body: { error: { message: 'Not authenticated', type: 'invalid_request_error', param: null, code: null } },
      kind: 'invalid_key',
    },
    {
      source: 'body quoted in https://github.com/XInTheDark/raycast-g4f/issues/179',
      name: 'key refused',
      status: 403,
      body: { detail: { error: 'Not authenticated' } },
      kind: 'invalid_key',
    },
    {
      // A 429 about the model's capacity, not the key: quoted from an upstream error by a gateway's model check.
      source: 'body quoted in https://github.com/truefoundry/models/pull/862 (429 from deepinfra)',
      name: 'model busy',
      status: 429,
      body: { error: { message: 'Model busy, retry later' } },
      kind: 'server',
    },
    {
      source: 'https://deepinfra.com/docs/advanced/rate-limits (429 above the concurrent request limit)',
      name: 'rate limited',
      status: 429,
      body: { error: { message: 'Rate limit exceeded', type: 'rate_limit_error', param: null, code: null } },
      kind: 'rate_limited',
      retryAfter: 60,
    },
  ],
  listing: {
    // GET https://api.deepinfra.com/v1/openai/models: OpenAI's list, each entry with a metadata
    // object (description, context_length, max_tokens, pricing, tags) or none. Entries in the shape
    // the clients below read and quote; prices as truefoundry/models recorded them.
    source: 'https://github.com/RooCodeInc/Roo-Code/blob/main/src/api/providers/fetchers/deepinfra.ts (the fields); entries as quoted in https://github.com/expectedparrot/edsl/blob/main/edsl/inference_services/services/deep_infra_service.py and https://github.com/juspay/neurolink/blob/master/docs/getting-started/providers/deepinfra.md',
    body: {
      object: 'list',
      data: [
        {
          id: 'deepseek-ai/DeepSeek-V4-Flash-0731',
          object: 'model',
          created: 0,
          owned_by: 'deepinfra',
          root: 'deepseek-ai/DeepSeek-V4-Flash-0731',
          parent: null,
          metadata: {
            description: 'DeepSeek V4 Flash 0731',
            context_length: 1048576,
            max_tokens: 1048576,
            pricing: { input_tokens: 0.09, output_tokens: 0.18, cache_read_tokens: 0.018 },
            tags: ['chat', 'reasoning', 'reasoning_effort', 'prompt_cache'],
          },
        },
        {
          id: 'BAAI/bge-m3',
          object: 'model',
          created: 0,
          owned_by: 'deepinfra',
          root: 'BAAI/bge-m3',
          parent: null,
          metadata: { description: 'Multi-Functionality, Multi-Linguality, and Multi-Granularity embeddings', context_length: 8192, pricing: { input_tokens: 0.01 }, tags: ['embed'] },
        },
        {
          id: 'openai/whisper-large-v3-turbo',
          object: 'model',
          created: 0,
          owned_by: 'deepinfra',
          root: 'openai/whisper-large-v3-turbo',
          parent: null,
          metadata: { description: 'Whisper large-v3 turbo', context_length: 0, pricing: { input_seconds: 0.0001 }, tags: ['stt'] },
        },
        {
          id: 'hexgrad/Kokoro-82M',
          object: 'model',
          created: 0,
          owned_by: 'deepinfra',
          root: 'hexgrad/Kokoro-82M',
          parent: null,
          metadata: { description: 'Kokoro text to speech', context_length: 0, pricing: { input_characters: 0.0000008 }, tags: ['tts'] },
        },
        { id: 'meta-llama/Llama-Guard-4-12B', object: 'model', created: 0, owned_by: 'deepinfra', root: 'meta-llama/Llama-Guard-4-12B', parent: null },
      ],
    },
    // Nothing DeepInfra serves is free.
    expected: [
      { id: 'deepseek-ai/DeepSeek-V4-Flash-0731', kind: 'chat', free: false },
      { id: 'BAAI/bge-m3', kind: 'embedding', free: false },
      { id: 'openai/whisper-large-v3-turbo', kind: 'transcription', free: false },
      { id: 'hexgrad/Kokoro-82M', kind: 'other', free: false },
      { id: 'meta-llama/Llama-Guard-4-12B', kind: 'other', free: false },
    ],
  },
};

export default fixtures;
