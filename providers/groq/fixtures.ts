import type { ProviderFixtures } from '../types.ts';

const errors = 'https://console.groq.com/docs/errors';
const limits = 'https://console.groq.com/docs/rate-limits';
const limitMessage = (window: string, retry: string): string =>
  `Rate limit reached for model \`llama-3.3-70b-versatile\` in organization \`org_01kjh7p9n8f1qs6nz2bz77vy6b\` service tier \`on_demand\` on ${window}. Please try again in ${retry}. Need more tokens? Upgrade to Dev Tier today at https://console.groq.com/settings/billing`;

/** One entry of Groq's model list, in the shape of the answer quoted in anomalyco/models.dev#1276 (2026-03-26). */
const listed = (id: string, ownedBy: string, created: number, contextWindow: number, maxCompletionTokens: number, active = true): unknown => ({
  id,
  object: 'model',
  created,
  owned_by: ownedBy,
  active,
  context_window: contextWindow,
  public_apps: null,
  max_completion_tokens: maxCompletionTokens,
});

const fixtures: ProviderFixtures = {
  sampleKey: 'gsk_Q7vT2mXp9LcR4wZk8bNf3HjY6sDa1Ue5',
  // @ai-sdk/groq sends no stream_options; Groq reports streaming usage in x_groq.usage on the final chunk.
  wire: { omittedFields: ['stream_options'], streamUsage: 'x_groq' },
  listing: {
    // The first four entries as quoted from GET https://api.groq.com/openai/v1/models in anomalyco/models.dev#1276 and
    // sigoden/aichat#1498; whisper-large-v3 (listed there too) in the same shape with the models page's 448-token window.
    // An inactive entry is left out.
    source: 'https://console.groq.com/docs/api-reference#models-list; answer quoted in https://github.com/anomalyco/models.dev/pull/1276',
    body: {
      object: 'list',
      data: [
        listed('llama-3.1-8b-instant', 'Meta', 1693721698, 131072, 131072),
        listed('meta-llama/llama-4-scout-17b-16e-instruct', 'Meta', 1743874824, 131072, 8192),
        listed('moonshotai/kimi-k2-instruct', 'Moonshot AI', 1752435491, 131072, 16384),
        listed('meta-llama/llama-prompt-guard-2-86m', 'Meta', 1748632165, 512, 512),
        listed('whisper-large-v3', 'OpenAI', 1693721698, 448, 448),
        listed('openai/gpt-oss-120b', 'OpenAI', 1754408224, 131072, 65536, false),
      ],
    },
    expected: [
      { id: 'llama-3.1-8b-instant', kind: 'chat', free: true },
      { id: 'meta-llama/llama-4-scout-17b-16e-instruct', kind: 'chat', free: true },
      { id: 'moonshotai/kimi-k2-instruct', kind: 'chat', free: true },
      { id: 'meta-llama/llama-prompt-guard-2-86m', kind: 'other', free: true },
      { id: 'whisper-large-v3', kind: 'transcription', free: true },
    ],
  },
  errors: [
    {
      // The 429 body as Groq sends it, quoted in continuedev/continue#10920; retry-after per the rate-limits page.
      source: `${limits}; body quoted in https://github.com/continuedev/continue/issues/10920`,
      name: 'per-minute request limit (RPM)',
      status: 429,
      headers: { 'retry-after': '2' },
      body: { error: { message: limitMessage('requests per minute (RPM): Limit 30, Used 30, Requested 1', '2s'), type: 'requests', code: 'rate_limit_exceeded' } },
      kind: 'rate_limited',
      retryAfter: 2,
    },
    {
      source: `${limits}; body quoted in https://github.com/continuedev/continue/issues/10920`,
      name: 'daily token limit (TPD): out until the reported time',
      status: 429,
      headers: { 'retry-after': '579' },
      body: { error: { message: limitMessage('tokens per day (TPD): Limit 100000, Used 97050, Requested 3619', '9m38.016s'), type: 'tokens', code: 'rate_limit_exceeded' } },
      kind: 'rate_limited',
      retryAfter: 579,
    },
    {
      source: `${limits}; body quoted in https://github.com/continuedev/continue/issues/10920`,
      name: 'daily request limit (RPD): out until the reported time, even without retry-after',
      status: 429,
      body: { error: { message: limitMessage('requests per day (RPD): Limit 1000, Used 1000, Requested 1', '1h26m24s'), type: 'requests', code: 'rate_limit_exceeded' } },
      kind: 'rate_limited',
      retryAfter: 5184,
    },
    {
      source: `${errors} (401 Unauthorized)`,
      name: 'invalid API key',
      status: 401,
      body: { error: { message: 'Invalid API Key', type: 'invalid_request_error', code: 'invalid_api_key' } },
      kind: 'invalid_key',
    },
    {
      source: `${errors} (404 Not Found)`,
      name: 'model not found',
      status: 404,
      body: { error: { message: 'The model `llama-9-70b` does not exist or you do not have access to it.', type: 'invalid_request_error', code: 'model_not_found' } },
      kind: 'model_unavailable',
    },
    {
      // A retired model since 2026-08-16, as a free key gets it (ITSpecialist111/ai_automation_suggester#187, 2026-08-18).
      source: `${errors} (404 Not Found); body quoted in https://github.com/ITSpecialist111/ai_automation_suggester/issues/187`,
      name: 'retired model (HTTP 404 model_not_found)',
      status: 404,
      body: { error: { message: 'The model `llama-3.3-70b-versatile` does not exist or you do not have access to it.', type: 'invalid_request_error', code: 'model_not_found' } },
      kind: 'model_unavailable',
    },
    {
      // Groq's decommission notice, a 400 that generic wording would take for the caller's mistake.
      source: `${errors} (400 Bad Request); body quoted in https://github.com/rashadphz/farfalle/issues/107`,
      name: 'model decommissioned (HTTP 400)',
      status: 400,
      body: {
        error: {
          message:
            'The model `llama-3.1-70b-versatile` has been decommissioned and is no longer supported. Please refer to https://console.groq.com/docs/deprecations for a recommendation on which model to use instead.',
          type: 'invalid_request_error',
          code: 'model_decommissioned',
        },
      },
      kind: 'model_unavailable',
    },
    {
      // Groq's answer to a max_tokens above the model's maximum, as users report it (the same text with 40960
      // for qwen3-32b in RooCodeInc/Roo-Code#5136).
      source: `${errors} (400 Bad Request); text quoted in https://github.com/RooCodeInc/Roo-Code/issues/5136`,
      name: 'output budget above the model maximum',
      status: 400,
      body: {
        error: {
          message: '`max_tokens` must be less than or equal to `32768`, the maximum value for `max_tokens` is less than the `context_window` for this model',
          type: 'invalid_request_error',
        },
      },
      kind: 'output_budget',
    },
    {
      // The 413 a request larger than the free tier's TPM gets, quoted whole with its type and code in
      // HunorLaczko/ha-groq-cloud-api#27 (2026-05-16); the gpt-oss-120b text with the free plan's 8000 TPM is
      // quoted in autohandai/code-cli#302 (2026-06-29) and tashfeenahmed/freellmapi#254 (2026-06-07).
      source: `${limits}; body quoted in https://github.com/autohandai/code-cli/issues/302 and https://github.com/HunorLaczko/ha-groq-cloud-api/issues/27`,
      name: 'request larger than the per-minute token budget (413)',
      status: 413,
      body: {
        error: {
          message:
            'Request too large for model `openai/gpt-oss-120b` in organization `org_01kw3t4t1ke018w1a90cd42bys` service tier `on_demand` on tokens per minute (TPM): Limit 8000, Requested 34041, please reduce your message size and try again. Need more tokens? Upgrade to Dev Tier today at https://console.groq.com/settings/billing',
          type: 'tokens',
          code: 'rate_limit_exceeded',
        },
      },
      kind: 'request_too_large',
      requestLimit: 8000,
    },
    {
      source: `${errors} (400 Bad Request)`,
      name: 'context length exceeded',
      status: 400,
      body: { error: { message: 'Please reduce the length of the messages or completion.', type: 'invalid_request_error', param: 'messages', code: 'context_length_exceeded' } },
      kind: 'context_too_long',
    },
  ],
};

export default fixtures;
