import type { ProviderFixtures } from '../types.ts';

/**
 * How /v1 wraps an error for OpenAI clients (`NewError` in ollama/ollama openai/openai.go): the message as the cloud
 * says it, type `api_error` for every status but 400 and 404.
 */
const envelope = 'https://github.com/ollama/ollama/blob/main/openai/openai.go';
const apiError = (message: string): unknown => ({ error: { message, type: 'api_error', param: null, code: null } });

/** One entry of GET /v1/models (`ToListCompletion` in openai/openai.go): id, object, created, owned_by. */
const listed = (id: string): unknown => ({ id, object: 'model', created: 1788393600, owned_by: 'library' });

const fixtures: ProviderFixtures = {
  // Ollama does not document the key format; a made-up random string stands in.
  sampleKey: 'Q8r2VxL7mT4kZ9pW3nB6hJ1cF5dS0gY2aE7uR4iO',
  listing: {
    // The answer's shape from /v1/models (https://docs.ollama.com/api/openai-compatibility, openai/openai.go); the ids
    // as the cloud listed them on 2026-09-03 (fgrehm/pi-ollama-cloud, models.generated.ts).
    source: `https://docs.ollama.com/api/openai-compatibility; ${envelope}; ids from https://github.com/fgrehm/pi-ollama-cloud/blob/main/models.generated.ts`,
    body: {
      object: 'list',
      data: [listed('gpt-oss:120b'), listed('deepseek-v4-pro:0813'), listed('gemma4:31b'), listed('kimi-k3'), listed('nemotron-3-nano:30b'), listed('qwen3.5:397b')],
    },
    expected: [
      { id: 'gpt-oss:120b', kind: 'chat', free: true },
      { id: 'deepseek-v4-pro:0813', kind: 'chat', free: false },
      { id: 'gemma4:31b', kind: 'chat', free: true },
      { id: 'kimi-k3', kind: 'chat', free: false },
      { id: 'nemotron-3-nano:30b', kind: 'chat', free: true },
      { id: 'qwen3.5:397b', kind: 'chat', free: false },
    ],
  },
  errors: [
    {
      // A plan from before 2026-08-31 out of its 5-hour window. At the fixture's moment (20:00 UTC) the window
      // that started at 18:00 UTC ends at 23:00 UTC.
      source: `message quoted in https://github.com/Anantys-oss/koan/issues/1862 (also https://github.com/continuedev/continue/issues/11444, https://github.com/NousResearch/hermes-agent/issues/68831); envelope ${envelope}`,
      name: 'session usage limit: out until the 5-hour window ends',
      status: 429,
      body: apiError(
        'you (atoomic) have reached your session usage limit, upgrade for higher limits: https://ollama.com/upgrade or add extra usage: https://ollama.com/settings (ref: 5d0fb402-680e-49fb-a261-4de5249a0bda)',
      ),
      kind: 'rate_limited',
      retryAfter: 10_800,
    },
    {
      // Out until Monday 00:00 UTC, three days and four hours later; health skips a key for a day at most.
      source: `message quoted in https://github.com/NousResearch/hermes-agent/pull/68832, https://github.com/diegosouzapw/OmniRoute/issues/3709 and https://github.com/HomericIntelligence/Scylla/issues/346; envelope ${envelope}`,
      name: 'weekly usage limit: out until the week starts again',
      status: 429,
      body: apiError(
        'you (seppe) have reached your weekly usage limit, upgrade for higher limits: https://ollama.com/upgrade or add extra usage: https://ollama.com/settings',
      ),
      kind: 'rate_limited',
      retryAfter: 86_400,
    },
    {
      source: `message quoted in https://github.com/continuedev/continue/issues/9233; envelope ${envelope}`,
      name: 'hourly usage limit',
      status: 429,
      body: apiError("you've reached your hourly usage limit, please wait or upgrade to continue"),
      kind: 'rate_limited',
      retryAfter: 3_600,
    },
    {
      // A subscription-only model with a free key: the key is fine for the starter models.
      source: `message quoted in https://github.com/xtekky/gpt4free/issues/3436, https://github.com/ollama/ollama/issues/15741 and https://github.com/tashfeenahmed/freellmapi/issues/767; envelope ${envelope}`,
      name: 'model needs a subscription (HTTP 403)',
      status: 403,
      body: apiError('this model requires a subscription, upgrade for access: https://ollama.com/upgrade (ref: b7b9f6f9-5486-478e-8050-857feaa13152)'),
      kind: 'model_unavailable',
    },
    {
      source: `message quoted in https://github.com/ollama/ollama/issues/17639; envelope ${envelope}`,
      name: 'model billed to extra usage only, with none bought (HTTP 402)',
      status: 402,
      body: apiError('this model uses extra usage only (not included plan usage) and your extra usage balance is empty'),
      kind: 'model_unavailable',
    },
    {
      source: `message quoted in https://github.com/continuedev/continue/issues/11405 and https://github.com/diegosouzapw/OmniRoute/issues/276; envelope ${envelope}`,
      name: 'unauthorized',
      status: 401,
      body: apiError('unauthorized'),
      kind: 'invalid_key',
    },
  ],
};

export default fixtures;
