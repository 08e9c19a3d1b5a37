import type { ProviderFixtures } from '../types.ts';

const troubleshooting = 'https://ai.google.dev/gemini-api/docs/troubleshooting';
const limits = 'https://ai.google.dev/gemini-api/docs/rate-limits';

/** A RESOURCE_EXHAUSTED answer with Google's QuotaFailure and RetryInfo details. */
function quotaExceeded(quotaId: string, retryDelay: string): unknown {
  return {
    error: {
      code: 429,
      message:
        'You exceeded your current quota, please check your plan and billing details. For more information on this error, head to: https://ai.google.dev/gemini-api/docs/rate-limits.',
      status: 'RESOURCE_EXHAUSTED',
      details: [
        {
          '@type': 'type.googleapis.com/google.rpc.QuotaFailure',
          violations: [
            {
              quotaMetric: 'generativelanguage.googleapis.com/generate_content_free_tier_requests',
              quotaId,
              quotaDimensions: { location: 'global', model: 'gemini-2.5-flash' },
              quotaValue: '250',
            },
          ],
        },
        { '@type': 'type.googleapis.com/google.rpc.Help', links: [{ description: 'Learn more about Gemini API quotas', url: limits }] },
        { '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay },
      ],
    },
  };
}

/** One Model of models.list, with the fields https://ai.google.dev/api/models#Model documents. */
function model(name: string, displayName: string, methods: readonly string[], inputTokenLimit: number, outputTokenLimit: number, thinking?: boolean): unknown {
  return {
    name: `models/${name}`,
    version: '001',
    displayName,
    description: `${displayName}.`,
    inputTokenLimit,
    outputTokenLimit,
    supportedGenerationMethods: methods,
    ...(thinking === undefined ? {} : { temperature: 1, topP: 0.95, topK: 64, maxTemperature: 2, thinking }),
  };
}

const chat = ['generateContent', 'countTokens', 'createCachedContent', 'batchGenerateContent'];

const fixtures: ProviderFixtures = {
  sampleKey: 'AIzaSyB4xK9mQ2vL7pT3wR8nZ5cJ1hF6gD0sE-k',
  wire: { format: 'gemini', chatPath: (modelId) => `/models/${modelId}:streamGenerateContent?alt=sse` },
  listing: {
    // The shape of models.list with a page token; token limits from the model pages. Free: the free-tier column of the
    // pricing page (gemini-3.8-flash, Gemma 4), not gemini-3.5-flash; speech, embedding and image models are not chat.
    source: 'https://ai.google.dev/api/models#method:-models.list; limits from https://ai.google.dev/gemini-api/docs/models',
    body: {
      models: [
        model('gemini-3.8-flash', 'Gemini 3.8 Flash', chat, 1048576, 65536, true),
        model('gemini-3.5-flash', 'Gemini 3.5 Flash', chat, 1048576, 65536, true),
        model('gemma-4-31b-it', 'Gemma 4 31B', ['generateContent', 'countTokens'], 262144, 32768, false),
        model('gemini-2.5-flash-preview-tts', 'Gemini 2.5 Flash Preview TTS', ['countTokens', 'generateContent'], 8192, 16384),
        model('gemini-3.1-flash-image', 'Gemini 3.1 Flash Image', chat, 131072, 32768, true),
        model('gemini-embedding-001', 'Gemini Embedding 001', ['embedContent', 'countTextTokens', 'countTokens', 'asyncBatchEmbedContent'], 2048, 1),
        model('imagen-4.0-generate-001', 'Imagen 4', ['predict'], 480, 8192),
      ],
      nextPageToken: 'Chhtb2RlbHMvaW1hZ2VuLTQuMC1nZW5lcmF0ZS0wMDE=',
    },
    expected: [
      { id: 'gemini-3.8-flash', kind: 'chat', free: true },
      { id: 'gemini-3.5-flash', kind: 'chat', free: false },
      { id: 'gemma-4-31b-it', kind: 'chat', free: true },
      { id: 'gemini-2.5-flash-preview-tts', kind: 'other', free: false },
      { id: 'gemini-3.1-flash-image', kind: 'other', free: false },
      { id: 'gemini-embedding-001', kind: 'embedding', free: false },
      { id: 'imagen-4.0-generate-001', kind: 'other', free: false },
    ],
  },
  errors: [
    {
      // Google answers a wrong key with 400 INVALID_ARGUMENT, not 401: it is the key, not the request.
      source: `${troubleshooting} (400 INVALID_ARGUMENT, API key not valid)`,
      name: 'invalid API key (HTTP 400, reason API_KEY_INVALID)',
      status: 400,
      body: {
        error: {
          code: 400,
          message: 'API key not valid. Please pass a valid API key.',
          status: 'INVALID_ARGUMENT',
          details: [
            {
              '@type': 'type.googleapis.com/google.rpc.ErrorInfo',
              reason: 'API_KEY_INVALID',
              domain: 'googleapis.com',
              metadata: { service: 'generativelanguage.googleapis.com' },
            },
          ],
        },
      },
      kind: 'invalid_key',
    },
    {
      source: `${troubleshooting} (403 PERMISSION_DENIED)`,
      name: 'key without permission',
      status: 403,
      body: { error: { code: 403, message: 'Method doesn\'t allow unregistered callers (callers without established identity). Please use API Key or other form of API consumer identity to call this API.', status: 'PERMISSION_DENIED' } },
      kind: 'invalid_key',
    },
    {
      // Quota ids and details as quoted in google-gemini/gemini-cli#8437.
      source: `${limits}; body quoted in https://github.com/google-gemini/gemini-cli/issues/8437`,
      name: 'per-minute quota: RetryInfo says when',
      status: 429,
      body: quotaExceeded('GenerateRequestsPerMinutePerProjectPerModel-FreeTier', '43s'),
      kind: 'rate_limited',
      retryAfter: 43,
    },
    {
      // "Requests per day (RPD) quotas reset at midnight Pacific time": 12:00 PST -> 12 hours.
      source: `${limits} (RPD resets at midnight Pacific time); body quoted in https://github.com/google-gemini/gemini-cli/issues/8437`,
      name: 'daily quota (a PerDay quota id): out until midnight Pacific time',
      status: 429,
      body: quotaExceeded('GenerateRequestsPerDayPerProjectPerModel-FreeTier', '17s'),
      kind: 'rate_limited',
      retryAfter: 43_200,
    },
    {
      // The message as a prepaid project gets it once its credit is spent (quoted in dyad-sh/dyad#3626, 2026-06-10);
      // the thread quotes the message only, so the RESOURCE_EXHAUSTED envelope is Google's usual one for quota.
      source: 'https://ai.google.dev/gemini-api/docs/billing (prepaid billing); message quoted in https://github.com/dyad-sh/dyad/issues/3626',
      name: 'prepayment credits depleted',
      status: 429,
      body: {
        error: {
          code: 429,
          message: 'Your prepayment credits are depleted. Please go to AI Studio at https://ai.studio/projects to manage your project and billing.',
          status: 'RESOURCE_EXHAUSTED',
        },
      },
      kind: 'no_credit',
    },
    {
      // A shut-down model answers like an unknown one (iBUHub/AIStudioToAPI#157 quotes it for gemini-2.5-flash).
      source: `${troubleshooting} (404 NOT_FOUND); body quoted in https://github.com/iBUHub/AIStudioToAPI/issues/157`,
      name: 'retired model (404 NOT_FOUND)',
      status: 404,
      body: {
        error: {
          code: 404,
          message: 'models/gemini-2.0-flash is not found for API version v1beta, or is not supported for generateContent. Call ListModels to see the list of available models and their supported methods.',
          status: 'NOT_FOUND',
        },
      },
      kind: 'model_unavailable',
    },
    {
      source: `${troubleshooting} (404 NOT_FOUND)`,
      name: 'model not found',
      status: 404,
      body: {
        error: {
          code: 404,
          message: 'models/gemini-9.0-flash is not found for API version v1beta, or is not supported for generateContent. Call ListModels to see the list of available models and their supported methods.',
          status: 'NOT_FOUND',
        },
      },
      kind: 'model_unavailable',
    },
    {
      source: `${troubleshooting} (400 INVALID_ARGUMENT: the input is larger than the model's limit)`,
      name: 'input token count over the model\'s limit',
      status: 400,
      body: { error: { code: 400, message: 'The input token count (1200000) exceeds the maximum number of tokens allowed (1048576).', status: 'INVALID_ARGUMENT' } },
      kind: 'context_too_long',
    },
    {
      source: `${troubleshooting} (503 UNAVAILABLE)`,
      name: 'model overloaded',
      status: 503,
      body: { error: { code: 503, message: 'The model is overloaded. Please try again later.', status: 'UNAVAILABLE' } },
      kind: 'server',
    },
  ],
};

export default fixtures;
