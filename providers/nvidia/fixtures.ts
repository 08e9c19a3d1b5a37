import type { ProviderFixtures } from '../types.ts';

const fixtures: ProviderFixtures = {
  sampleKey: 'nvapi-Xk4Tq9Lm2Zp7Rw3Nv8Bj5Hc1Yf6Gd0Ss-Ua',
  errors: [
    {
      // NVIDIA's API catalog answers in RFC 9457 problem details: status, title, detail.
      source: 'problem-details body quoted in https://github.com/HKUDS/OpenHarness/issues/233 and https://github.com/can1357/oh-my-pi/issues/499',
      name: 'key not authorized',
      status: 403,
      body: { status: 403, title: 'Forbidden', detail: 'Authorization failed' },
      kind: 'invalid_key',
    },
    {
      source: 'problem-details body as the 403 above; https://docs.api.nvidia.com/nim/reference (401 Unauthorized)',
      name: 'invalid API key',
      status: 401,
      body: { status: 401, title: 'Unauthorized', detail: 'Authentication failed' },
      kind: 'invalid_key',
    },
    {
      // A hosted model is served per account: the same key can reach some models and not others.
      source: 'body quoted from a live probe in https://github.com/gethouston/houston/pull/1243 (also https://github.com/tashfeenahmed/freellmapi/issues/634 for moonshotai/kimi-k2.6)',
      name: 'model not served for this account',
      status: 404,
      body: { status: 404, title: 'Not Found', detail: "Function 'a1b2c3d4-0000-4000-8000-0123456789ab': Not found for account 'acct-0123456789'" },
      kind: 'model_unavailable',
    },
    {
      // An unknown or retired id can also get a plain-text 404 from the gateway.
      source: 'body quoted in https://github.com/nestcn/docs.nestjs.cn/pull/564 (deepseek-ai/deepseek-v3_1 after it left the catalog)',
      name: 'model id not in the catalog (plain-text 404)',
      status: 404,
      body: '404 page not found',
      kind: 'model_unavailable',
    },
    {
      // NVIDIA keeps listing some retired models in GET /v1/models while chat answers 410.
      source: 'body quoted in https://github.com/NVIDIA/NemoClaw/issues/11902 (also https://github.com/anomalyco/models.dev/pull/3000, https://github.com/tashfeenahmed/freellmapi/issues/634)',
      name: 'model reached its end of life',
      status: 410,
      headers: { 'content-type': 'application/problem+json' },
      body: {
        type: 'about:blank',
        title: 'Gone',
        status: 410,
        detail: "The model 'deepseek-ai/deepseek-v4-pro' has reached its end of life on 2026-08-07T09:00:00Z and is no longer available.",
      },
      kind: 'model_unavailable',
    },
    {
      source: 'https://docs.api.nvidia.com/nim/reference (429 Too Many Requests; the body follows the problem-details form above)',
      name: 'rate limited (40 requests per minute on the free tier)',
      status: 429,
      body: { status: 429, title: 'Too Many Requests' },
      kind: 'rate_limited',
      retryAfter: 60,
    },
    {
      // NIM for LLMs runs on vLLM, whose OpenAI server words the context error this way.
      source: "https://docs.nvidia.com/nim/large-language-models/latest/ (OpenAI-compatible errors); vLLM's context-length message",
      name: 'context length exceeded',
      status: 400,
      body: {
        object: 'error',
        message: "This model's maximum context length is 131072 tokens. However, you requested 140000 tokens (139000 in the messages, 1000 in the completion). Please reduce the length of the messages or completion.",
        type: 'BadRequestError',
        param: null,
        code: 400,
      },
      kind: 'context_too_long',
    },
  ],
  listing: {
    // An excerpt of GET https://integrate.api.nvidia.com/v1/models as quoted in the issue, in its order.
    source: 'https://github.com/NVIDIA/NemoClaw/issues/2703 (GET /v1/models through inference.local, quoted); format: https://docs.api.nvidia.com/nim/reference/llm-apis',
    body: {
      object: 'list',
      data: [
        { id: 'mistralai/mistral-nemotron', object: 'model', created: 735790403, owned_by: 'mistralai' },
        { id: 'mistralai/mistral-small-4-119b-2603', object: 'model', created: 735790403, owned_by: 'mistralai' },
        { id: 'moonshotai/kimi-k2.6', object: 'model', created: 735790403, owned_by: 'moonshotai' },
        { id: 'nv-mistralai/mistral-nemo-12b-instruct', object: 'model', created: 735790403, owned_by: 'nv-mistralai' },
        { id: 'nvidia/ai-synthetic-video-detector', object: 'model', created: 735790403, owned_by: 'nvidia' },
        { id: 'nvidia/cosmos-reason2-8b', object: 'model', created: 735790403, owned_by: 'nvidia' },
        { id: 'nvidia/embed-qa-4', object: 'model', created: 735790403, owned_by: 'nvidia' },
        { id: 'nvidia/gliner-pii', object: 'model', created: 735790403, owned_by: 'nvidia' },
        { id: 'nvidia/llama-3.1-nemoguard-8b-content-safety', object: 'model', created: 735790403, owned_by: 'nvidia' },
      ],
    },
    expected: [
      { id: 'mistralai/mistral-nemotron', kind: 'chat', free: true },
      { id: 'mistralai/mistral-small-4-119b-2603', kind: 'chat', free: true },
      { id: 'moonshotai/kimi-k2.6', kind: 'chat', free: true },
      { id: 'nv-mistralai/mistral-nemo-12b-instruct', kind: 'chat', free: true },
      { id: 'nvidia/ai-synthetic-video-detector', kind: 'other', free: true },
      { id: 'nvidia/cosmos-reason2-8b', kind: 'chat', free: true },
      { id: 'nvidia/embed-qa-4', kind: 'embedding', free: true },
      { id: 'nvidia/gliner-pii', kind: 'other', free: true },
      { id: 'nvidia/llama-3.1-nemoguard-8b-content-safety', kind: 'other', free: true },
    ],
  },
};

export default fixtures;
