import type { ProviderFixtures } from '../types.ts';

const errors = 'https://docs.cohere.com/reference/errors';
const limits = 'https://docs.cohere.com/docs/rate-limits';

const fixtures: ProviderFixtures = {
  sampleKey: 'Pk7Ol2Ij9Uh4Yg8Tf3Rd6Es1Wa5Qz0XcVbNm',
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
