import { FIXTURE_NOW, type ProviderFixtures } from '../types.ts';

const errors = 'https://openrouter.ai/docs/api-reference/errors';
const limits = 'https://openrouter.ai/docs/api-reference/limits';
/** The free-model daily counter resets at 00:00 UTC: four hours after FIXTURE_NOW. */
const nextUtcDay = String(Date.UTC(2026, 0, 16));

const models = 'https://openrouter.ai/docs/api-reference/models/get-models';

/** One Model of GET /api/v1/models, with the fields its reference documents. */
function listed(
  id: string,
  contextLength: number,
  inputs: readonly string[],
  outputs: readonly string[],
  price: { readonly prompt: string; readonly completion: string },
  parameters: readonly string[],
  maxCompletionTokens: number | null,
): unknown {
  return {
    id,
    canonical_slug: id.replace(/:free$/, ''),
    name: id,
    created: 1775606400,
    description: `${id}.`,
    context_length: contextLength,
    architecture: { modality: `${inputs.join('+')}->${outputs.join('+')}`, input_modalities: inputs, output_modalities: outputs, tokenizer: 'Other', instruct_type: null },
    pricing: { ...price, request: price.prompt === '-1' ? '-1' : '0', image: '0', web_search: '0', internal_reasoning: '0' },
    top_provider: { context_length: contextLength, max_completion_tokens: maxCompletionTokens, is_moderated: false },
    per_request_limits: null,
    supported_parameters: parameters,
    default_parameters: {},
  };
}

const free = { prompt: '0', completion: '0' };
const chatParameters = ['max_tokens', 'temperature', 'top_p', 'stop', 'seed', 'response_format', 'structured_outputs'];

const fixtures: ProviderFixtures = {
  sampleKey: 'sk-or-v1-8f3a9c2e7b1d4f6a0c5e9b3d7f1a4c8e',
  listing: {
    // The documented Model shape; gemma-4-31b-it's free and paid entries as anomalyco/models.dev#1387 and
    // pydantic/genai-prices#335 read them (262,144 tokens, 32,768 out, text and image in; $0.14/$0.40 per M paid).
    // openrouter/auto's "-1" prices (a router) are not zero; a content-safety classifier and an image model are not chat.
    source: `${models}; entries as quoted in https://github.com/anomalyco/models.dev/pull/1387`,
    body: {
      data: [
        listed('google/gemma-4-31b-it:free', 262144, ['text', 'image', 'video'], ['text'], free, [...chatParameters, 'tools', 'tool_choice', 'reasoning', 'include_reasoning'], 32768),
        listed('google/gemma-4-31b-it', 262144, ['text', 'image', 'video'], ['text'], { prompt: '0.00000014', completion: '0.0000004' }, [...chatParameters, 'tools', 'tool_choice'], 32768),
        listed('openrouter/owl-alpha', 1048576, ['text'], ['text'], free, [...chatParameters, 'tools', 'tool_choice'], 65536),
        listed('openrouter/auto', 2000000, ['text', 'image'], ['text'], { prompt: '-1', completion: '-1' }, chatParameters, null),
        listed('nvidia/nemotron-3.5-content-safety:free', 131072, ['text'], ['text'], free, chatParameters, 4096),
        listed('black-forest-labs/flux.2-pro', 46864, ['text', 'image'], ['image'], { prompt: '0', completion: '0.00007' }, ['seed'], null),
      ],
    },
    expected: [
      { id: 'google/gemma-4-31b-it:free', kind: 'chat', free: true },
      { id: 'google/gemma-4-31b-it', kind: 'chat', free: false },
      { id: 'openrouter/owl-alpha', kind: 'chat', free: true },
      { id: 'openrouter/auto', kind: 'chat', free: false },
      { id: 'nvidia/nemotron-3.5-content-safety:free', kind: 'other', free: true },
      { id: 'black-forest-labs/flux.2-pro', kind: 'other', free: false },
    ],
  },
  errors: [
    {
      source: `${limits} (free-model daily limit, X-RateLimit-Reset in epoch ms)`,
      name: 'daily free-model limit: out until X-RateLimit-Reset',
      status: 429,
      headers: { 'x-ratelimit-limit': '50', 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': nextUtcDay },
      body: {
        error: {
          message: 'Rate limit exceeded: free-models-per-day. Add 10 credits to unlock 1000 free model requests per day',
          code: 429,
          metadata: { headers: { 'X-RateLimit-Limit': '50', 'X-RateLimit-Remaining': '0', 'X-RateLimit-Reset': nextUtcDay }, provider_name: null },
        },
      },
      kind: 'rate_limited',
      retryAfter: 14_400,
    },
    {
      source: `${limits} (the reset also travels in error.metadata.headers)`,
      name: 'daily free-model limit with the reset only in the body',
      status: 429,
      body: {
        error: {
          message: 'Rate limit exceeded: free-models-per-day. Add 10 credits to unlock 1000 free model requests per day',
          code: 429,
          metadata: { headers: { 'X-RateLimit-Limit': '50', 'X-RateLimit-Remaining': '0', 'X-RateLimit-Reset': nextUtcDay }, provider_name: null },
        },
      },
      kind: 'rate_limited',
      retryAfter: 14_400,
    },
    {
      source: `${limits} (20 requests per minute on free models)`,
      name: 'per-minute free-model limit: out until X-RateLimit-Reset',
      status: 429,
      headers: { 'x-ratelimit-limit': '20', 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': String(FIXTURE_NOW + 37_000) },
      body: { error: { message: 'Rate limit exceeded: free-models-per-min. ', code: 429, metadata: { provider_name: null } } },
      kind: 'rate_limited',
      retryAfter: 37,
    },
    {
      source: `${errors} (429: rate limited; error.metadata.raw carries the upstream provider's message)`,
      name: 'the upstream provider behind OpenRouter is rate-limited',
      status: 429,
      body: {
        error: {
          message: 'Provider returned error',
          code: 429,
          metadata: {
            raw: 'google/gemma-4-31b-it:free is temporarily rate-limited upstream. Please retry shortly, or add your own key to accumulate your rate limits: https://openrouter.ai/settings/integrations',
            provider_name: 'Google AI Studio',
          },
        },
      },
      kind: 'rate_limited',
      retryAfter: 60,
    },
    {
      source: `${errors} (401: invalid credentials)`,
      name: 'invalid API key',
      status: 401,
      body: { error: { message: 'User not found.', code: 401 } },
      kind: 'invalid_key',
    },
    {
      // A 403 here is the caller's input, not the key: every other provider would see the same input.
      source: `${errors} (403: your chosen model requires moderation and your input was flagged)`,
      name: 'input flagged by moderation',
      status: 403,
      body: {
        error: {
          message: 'openai/gpt-oss-20b:free requires moderation on OpenAI. Your input was flagged for "violence/graphic". No credits were charged.',
          code: 403,
          metadata: { reasons: ['violence/graphic'], flagged_input: '...', provider_name: 'OpenAI', model_slug: 'openai/gpt-oss-20b:free' },
        },
      },
      kind: 'request',
    },
    {
      source: `${errors} (404: no endpoints for the model)`,
      name: 'model not found',
      status: 404,
      body: { error: { message: 'No endpoints found for nvidia/nemotron-9-nano:free.', code: 404 } },
      kind: 'model_unavailable',
    },
    {
      // A delisted free variant (stepfun-ai/Step-3.5-Flash#45, 2026-04-10: "we have stopped the free version").
      source: `${errors} (404); body quoted in https://github.com/stepfun-ai/Step-3.5-Flash/issues/45`,
      name: 'delisted free variant',
      status: 404,
      body: { error: { message: 'No endpoints found for stepfun/step-3.5-flash:free.', code: 404 }, user_id: 'user_2x7Kq9LmV4bN8cR1' },
      kind: 'model_unavailable',
    },
    {
      // A free period that ended (quoted in anomalyco/models.dev#1248, 2026-03-22).
      source: `${errors} (404); message quoted in https://github.com/anomalyco/models.dev/issues/1248`,
      name: 'free period ended',
      status: 404,
      body: { error: { message: 'The free Molmo2 8B period has ended. To continue using this model, please migrate to the paid slug: allenai/molmo-2-8b', code: 404 } },
      kind: 'model_unavailable',
    },
    {
      // About the request (it has tools), not the model: the next model, nothing quarantined (Kilo-Org/kilocode#9006).
      source: `https://openrouter.ai/docs/guides/routing/provider-selection; body quoted in https://github.com/Kilo-Org/kilocode/issues/9006`,
      name: 'no endpoint supports tool use',
      status: 404,
      body: {
        error: {
          message: 'No endpoints found that support tool use. To learn more about provider routing, visit: https://openrouter.ai/docs/guides/routing/provider-selection',
          code: 404,
        },
      },
      kind: 'output_budget',
    },
    {
      // The key's privacy settings exclude this model's endpoints; other free models may still serve the key.
      source: 'https://openrouter.ai/settings/privacy; body quoted in https://github.com/ShamanicArts/Flow.Launcher.Plugin.AI-Assistant/issues/2',
      name: 'no endpoint matches the data policy',
      status: 404,
      body: { error: { message: 'No endpoints found matching your data policy (Free model publication). Configure: https://openrouter.ai/settings/privacy', code: 404 } },
      kind: 'output_budget',
    },
    {
      // A balance that covers a smaller answer (astrio-labs/forall#76): the budget, not the key.
      source: `${errors} (402); body quoted in https://github.com/astrio-labs/forall/issues/76`,
      name: 'credits cover fewer max_tokens',
      status: 402,
      body: {
        error: {
          message:
            'This request requires more credits, or fewer max_tokens. You requested up to 64000 tokens, but can only afford 2666. To increase, visit https://openrouter.ai/settings/credits and upgrade to a paid account',
          code: 402,
          metadata: { provider_name: null },
        },
        user_id: 'user_8Qm2Vx7Lr4Tn9Kc3',
      },
      kind: 'output_budget',
    },
    {
      source: `${errors} (402: your account or API key has insufficient credits)`,
      name: 'insufficient credits',
      status: 402,
      body: { error: { message: 'Insufficient credits. Add more using https://openrouter.ai/settings/credits', code: 402 } },
      kind: 'no_credit',
    },
    {
      source: `${errors} (400: bad request; the context-length message names the middle-out transform)`,
      name: 'context length exceeded',
      status: 400,
      body: {
        error: {
          message:
            "This endpoint's maximum context length is 262144 tokens. However, you requested about 300000 tokens (299000 of text input, 1000 in the output). Please reduce the length of either one, or use the \"middle-out\" transform to compress your prompt automatically.",
          code: 400,
          metadata: { provider_name: null },
        },
      },
      kind: 'context_too_long',
    },
  ],
};

export default fixtures;
