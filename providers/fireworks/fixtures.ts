import type { ProviderFixtures } from '../types.ts';

const limits = 'https://docs.fireworks.ai/serverless/rate-limits';

const fixtures: ProviderFixtures = {
  sampleKey: 'fw_Bv7Nc2Mx5Lz8Ka3Js6Hd9Gf1Ds4Ap0Qw',
  errors: [
    {
      source: `${limits} (429 Too Many Requests above the adaptive limits)`,
      name: 'rate limited',
      status: 429,
      body: { error: { object: 'error', type: 'rate_limit_exceeded', message: 'Request rate limit exceeded, please try again later' } },
      kind: 'rate_limited',
      retryAfter: 60,
    },
    {
      source: `${limits} (503 Service Overloaded)`,
      name: 'service overloaded',
      status: 503,
      body: { error: { object: 'error', type: 'internal_server_error', message: 'Service overloaded, please try again later' } },
      kind: 'server',
    },
    {
      source: 'https://docs.fireworks.ai/api-reference/introduction (Bearer API key; 401 when it is invalid)',
      name: 'invalid API key',
      status: 401,
      body: { error: { object: 'error', type: 'unauthorized', message: 'The API key you provided is invalid.' } },
      kind: 'invalid_key',
    },
    {
      // Quoted in BerriAI/litellm#3465: a model that has no chat template.
      source: 'body quoted in https://github.com/BerriAI/litellm/issues/3465',
      name: 'model not servable through chat completions',
      status: 404,
      body: { error: { object: 'error', type: 'invalid_request_error', message: 'model is missing conversation_config, please use /completions API instead' } },
      kind: 'model_unavailable',
    },
    {
      // What a decommissioned serverless model answers, quoted from Fireworks' notice of 2026-08-27.
      source: 'body quoted in https://github.com/anomalyco/models.dev/pull/5683 (also https://github.com/Kiln-AI/Kiln/pull/1790)',
      name: 'model decommissioned from serverless',
      status: 404,
      body: { error: { message: 'Model not found, inaccessible, and/or not deployed', param: 'model', code: 'NOT_FOUND', type: 'error' }, request_id: 'chatcmpl-bc7630' },
      kind: 'model_unavailable',
    },
    {
      source: 'body quoted in https://github.com/pollinations/pollinations/issues/12136 and https://github.com/FerroxLabs/wayland/issues/545 (412 from api.fireworks.ai)',
      name: 'account suspended: out of credit or over its spending limit',
      status: 412,
      body: {
        error: {
          message: 'Account pollinations is suspended, possibly due to reaching the monthly spending limit or failure to pay past invoices. Please go to https://fireworks.ai/account/billing for more information.',
          param: null,
          code: 'PRECONDITION_FAILED',
          type: 'error',
        },
        request_id: '11650e2f-ff1b-4aac-9719-98006adf7349',
      },
      kind: 'no_credit',
    },
    {
      source: 'https://github.com/ogx-ai/ogx/issues/697 (400 naming the maximum context length)',
      name: 'context length exceeded',
      status: 400,
      body: { error: { object: 'error', type: 'invalid_request_error', message: 'The prompt is too long: 140000, model maximum context length: 131072' } },
      kind: 'context_too_long',
    },
  ],
  listing: {
    // GET https://api.fireworks.ai/inference/v1/models as quoted in a client's test; Fireworks
    // marks embedding and reranker models by kind, with supports_chat true.
    source: 'https://github.com/ENTERPILOT/GoModel/blob/main/internal/providers/fireworks/models_test.go (a Fireworks /models answer); format: https://docs.fireworks.ai/tools-sdks/openai-compatibility',
    body: {
      object: 'list',
      data: [
        { id: 'accounts/fireworks/models/kimi-k2p6', object: 'model', owned_by: 'fireworks', created: 1776455694, kind: 'HF_BASE_MODEL', supports_chat: true, supports_image_input: true, supports_tools: true, context_length: 262144 },
        { id: 'accounts/fireworks/models/qwen3-embedding-8b', object: 'model', owned_by: 'fireworks', created: 1755707090, kind: 'EMBEDDING_MODEL', supports_chat: true, supports_image_input: false, supports_tools: false, context_length: 40960 },
        { id: 'accounts/fireworks/models/qwen3-reranker-8b', object: 'model', owned_by: 'fireworks', created: 1759865045, kind: 'EMBEDDING_MODEL', supports_chat: true, supports_tools: false, context_length: 40960 },
        { id: 'accounts/fireworks/models/qwen3p7-plus', object: 'model', owned_by: 'fireworks', created: 1781036419, kind: 'CUSTOM_MODEL', supports_chat: true, supports_image_input: true, supports_tools: true },
      ],
    },
    // Every call spends credit: nothing Fireworks lists is free.
    expected: [
      { id: 'accounts/fireworks/models/kimi-k2p6', kind: 'chat', free: false },
      { id: 'accounts/fireworks/models/qwen3-embedding-8b', kind: 'embedding', free: false },
      { id: 'accounts/fireworks/models/qwen3-reranker-8b', kind: 'other', free: false },
      { id: 'accounts/fireworks/models/qwen3p7-plus', kind: 'chat', free: false },
    ],
  },
};

export default fixtures;
