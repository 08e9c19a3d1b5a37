import type { ProviderFixtures } from '../types.ts';

const errors = 'https://docs.cohere.com/reference/errors';
const limits = 'https://docs.cohere.com/docs/rate-limits';

/** One entry of GET /v1/models, in the documented GetModelResponse shape. */
function listed(name: string, endpoints: readonly string[], contextLength: number, features: readonly string[] | null, extra: Readonly<Record<string, unknown>> = {}): unknown {
  return {
    name,
    is_deprecated: false,
    endpoints,
    finetuned: false,
    context_length: contextLength,
    tokenizer_url: `https://storage.googleapis.com/cohere-public/tokenizers/${name}.json`,
    default_endpoints: [],
    features,
    ...extra,
  };
}

const chatFeatures = ['logprobs', 'json_mode', 'json_schema', 'strict_tools', 'safety_modes', 'tools'];

const fixtures: ProviderFixtures = {
  sampleKey: 'Pk7Ol2Ij9Uh4Yg8Tf3Rd6Es1Wa5Qz0XcVbNm',
  listing: {
    // The GetModelResponse fields of the reference; the deprecated command-r-plus entry (endpoints, features,
    // supports_vision) as a public client quotes Cohere's answer, the others in that shape with the models page's
    // context lengths. Chat models are free on a trial key; deprecated, embed and rerank models are not picked.
    source: 'https://docs.cohere.com/reference/list-models; context lengths from https://docs.cohere.com/docs/models',
    body: {
      models: [
        listed('command-a-plus-05-2026', ['chat'], 128000, chatFeatures, { supports_vision: true, default_endpoints: ['chat'] }),
        listed('command-a-03-2025', ['chat'], 256000, chatFeatures, { supports_vision: false }),
        listed('command-r-plus', ['generate', 'chat', 'summarize'], 128000, chatFeatures, { is_deprecated: true, supports_vision: false }),
        listed('embed-v4.0', ['embed'], 128000, null, { default_endpoints: ['embed'] }),
        listed('rerank-v3.5', ['rerank'], 4096, null),
      ],
      next_page_token: 'eyJwYWdlIjoxfQ==',
    },
    expected: [
      { id: 'command-a-plus-05-2026', kind: 'chat', free: true },
      { id: 'command-a-03-2025', kind: 'chat', free: true },
      { id: 'command-r-plus', kind: 'chat', free: false },
      { id: 'embed-v4.0', kind: 'embedding', free: false },
      { id: 'rerank-v3.5', kind: 'other', free: false },
    ],
  },
  // The Compatibility API lists stream_options and user among its unsupported parameters.
  wire: { omittedFields: ['stream_options', 'user'] },
  errors: [
    {
      source: `${errors} (429 Too Many Requests, trial key per-minute limit); ${limits}`,
      name: 'trial key per-minute limit',
      status: 429,
      body: {
        message:
          "You are using a Trial key, which is limited to 20 API calls / minute. You can continue to use the Trial key for free or upgrade to a Production key with higher rate limits at 'https://dashboard.cohere.com/api-keys'. Contact us on 'https://discord.gg/XW44jPfYJu' or email us at support@cohere.com with any questions",
      },
      kind: 'rate_limited',
      retryAfter: 60,
    },
    {
      // "a monthly limit of 1,000 calls for all endpoints with a trial key": out until the 1st of next month
      // (UTC), which health caps at a day: the key is tried once a day until then.
      source: `${errors} (429, trial key monthly limit); ${limits} (1,000 calls a month on a trial key)`,
      name: 'trial key monthly limit: out until the next month',
      status: 429,
      body: {
        message:
          "You are using a Trial key, which is limited to 1000 API calls / month. You can continue to use the Trial key for free or upgrade to a Production key with higher rate limits at 'https://dashboard.cohere.com/api-keys'. Contact us on 'https://discord.gg/XW44jPfYJu' or email us at support@cohere.com with any questions",
      },
      kind: 'rate_limited',
      retryAfter: 86_400,
    },
    {
      source: `${errors} (401 Unauthorized: invalid api token)`,
      name: 'invalid API key',
      status: 401,
      body: { message: 'invalid api token' },
      kind: 'invalid_key',
    },
    {
      // A retired model, as Cohere answers it since 2025-09-15 (quoted in pydantic/pydantic-ai#3201).
      source: `${errors} (404 Not Found); body quoted in https://github.com/pydantic/pydantic-ai/pull/3201`,
      name: 'retired model',
      status: 404,
      body: {
        id: 'b078a1f9-b421-4344-b9b3-be955075b0b0',
        message: "model 'command' was removed on September 15, 2025. See https://docs.cohere.com/docs/models#command for a list of models you can use instead.",
      },
      kind: 'model_unavailable',
    },
    {
      source: `${errors} (402 Payment Required: the account has reached its billing limit)`,
      name: 'billing limit reached',
      status: 402,
      body: { message: 'Please add or update your payment method at https://dashboard.cohere.com/billing?tab=payment to continue' },
      kind: 'no_credit',
    },
    {
      source: `${errors} (404 Not Found)`,
      name: 'model not found',
      status: 404,
      body: { message: "model 'command-z-9' not found, make sure the correct model ID was used and that you have access to the model." },
      kind: 'model_unavailable',
    },
    {
      source: `${errors} (400 Bad Request: too many tokens)`,
      name: 'too many tokens',
      status: 400,
      body: { message: "too many tokens: size limit exceeded by 11326 tokens. Try using shorter or fewer inputs, or setting prompt_truncation='AUTO'." },
      kind: 'context_too_long',
    },
  ],
};

export default fixtures;
