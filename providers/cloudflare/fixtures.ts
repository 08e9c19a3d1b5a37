import type { ProviderFixtures } from '../types.ts';

const errors = 'https://developers.cloudflare.com/workers-ai/platform/errors/';
/** Cloudflare's v4 API error envelope. */
const failure = (code: number, message: string): unknown => ({ errors: [{ message, code }], success: false, result: null, messages: [] });

const fixtures: ProviderFixtures = {
  sampleKey: 'a1b2c3d4e5f60718293a4b5c6d7e8f90:CFq8Zt3Lm7Xw2Rk9Pv4Nj6Hb1Yc5Td0Gs',
  // Workers AI's OpenAI endpoint lives under the account id, the part of the key before the colon.
  wire: { chatPath: (_modelId, key) => `/accounts/${key.slice(0, key.indexOf(':'))}/ai/v1/chat/completions` },
  errors: [
    {
      // "All limits reset daily at 00:00 UTC" (Workers AI pricing): four hours after FIXTURE_NOW.
      source: `${errors} (3036 Account limited, 429); https://developers.cloudflare.com/workers-ai/platform/pricing/ (reset at 00:00 UTC)`,
      name: 'daily free allocation used up: out until 00:00 UTC',
      status: 429,
      body: failure(3036, "AiError: You have used up your daily free allocation of 10,000 neurons. Please upgrade to Cloudflare's Workers Paid plan if you would like to continue usage."),
      kind: 'rate_limited',
      retryAfter: 14_400,
    },
    {
      source: `${errors} (3040 Out of capacity, 429)`,
      name: 'out of capacity: the provider, not the key',
      status: 429,
      body: failure(3040, 'AiError: No more data centers to forward the request to'),
      kind: 'server',
    },
    {
      source: 'https://developers.cloudflare.com/fundamentals/api/troubleshooting/ (10000 Authentication error)',
      name: 'invalid API token',
      status: 401,
      body: failure(10000, 'Authentication error'),
      kind: 'invalid_key',
    },
    {
      source: `${errors} (3023 Account blocked, 403)`,
      name: 'account blocked',
      status: 403,
      body: failure(3023, 'AiError: Service unavailable for account'),
      kind: 'invalid_key',
    },
    {
      // A 400 that is about the model, not the request: another provider may serve it.
      source: `${errors} (5007 No such model, 400)`,
      name: 'no such model (HTTP 400)',
      status: 400,
      body: failure(5007, 'AiError: No such model @cf/meta/llama-9-8b-instruct or task'),
      kind: 'model_unavailable',
    },
    {
      // Since 2026-07-28 Kimi K2.6, Kimi K2.7 Code and GLM-5.2 answer a Workers Free account with
      // 403 and internal code 5035. The message text is not quoted publicly; the rule reads the code.
      source: 'https://developers.cloudflare.com/changelog/post/2026-07-28-models-require-workers-paid/ (403, internal error 5035; errors table row added in https://github.com/cloudflare/cloudflare-docs/pull/32338)',
      name: 'model needs the Workers Paid plan (403, not the key)',
      status: 403,
      body: failure(5035, 'AiError: This model requires the Workers Paid plan'),
      kind: 'model_unavailable',
    },
    {
      source: `${errors} (3042 Invalid model ID, 404)`,
      name: 'invalid model id',
      status: 404,
      body: failure(3042, 'AiError: The model name is invalid'),
      kind: 'model_unavailable',
    },
    {
      source: `${errors} (3006 Request too large, 413)`,
      name: 'request too large for the model',
      status: 413,
      body: failure(3006, 'AiError: Request is too large'),
      kind: 'context_too_long',
    },
  ],
  listing: {
    // Entries as the Workers AI catalog records them (src/content/workers-ai-models/*.json in
    // cloudflare/cloudflare-docs, the model search answers the docs are built from), without
    // their input and output schemas, in the API's v4 envelope.
    source: 'https://developers.cloudflare.com/api/resources/ai/subresources/models/methods/list/ (GET /accounts/{account_id}/ai/models/search); entries from https://github.com/cloudflare/cloudflare-docs/tree/production/src/content/workers-ai-models',
    body: {
      success: true,
      errors: [],
      messages: [],
      result: [
        {
          name: '@cf/zai-org/glm-4.7-flash',
          properties: [
            { property_id: 'context_window', value: '131072' },
            { property_id: 'price', value: [{ unit: 'per M input tokens', price: 0.0605, currency: 'USD' }, { unit: 'per M output tokens', price: 0.4, currency: 'USD' }] },
            { property_id: 'function_calling', value: 'true' },
            { property_id: 'reasoning', value: 'true' },
          ],
          id: '86b3e51a-4b05-43fa-a403-0f27821919d2',
          source: 1,
          description: 'GLM-4.7-Flash is a fast and efficient multilingual text generation model with a 131,072 token context window. Optimized for dialogue, instruction-following, and multi-turn tool calling across 100+ languages.',
          task: { id: 'c329a1f9-323d-4e91-b2aa-582dd4188d34', name: 'Text Generation', description: 'Family of generative text models, such as large language models (LLM), that can be adapted for a variety of natural language tasks.' },
          created_at: '2026-01-28 16:04:39.346',
          tags: [],
        },
        {
          name: '@cf/moonshotai/kimi-k2.7-code',
          properties: [
            { property_id: 'require_workers_paid', value: 'true' },
            { property_id: 'context_window', value: '262144' },
            { property_id: 'function_calling', value: 'true' },
            { property_id: 'reasoning', value: 'true' },
            { property_id: 'reasoning_effort', value: { mandatory: true, default_enabled: true } },
            { property_id: 'terms', value: 'https://huggingface.co/moonshotai/Kimi-K2.7-Code/blob/main/LICENSE' },
            { property_id: 'vision', value: 'true' },
            { property_id: 'price', value: [{ unit: 'per M input tokens', price: 0.95, currency: 'USD' }, { unit: 'per M output tokens', price: 4, currency: 'USD' }, { unit: 'per M cached input tokens', price: 0.19, currency: 'USD' }] },
          ],
          id: 'c29c7295-ff20-4b9b-bdcc-25136c19b21d',
          source: 1,
          description: 'Kimi K2.7 is a frontier-scale open-source 1T parameter model with a 262.1k context window, multi-turn tool calling, vision inputs, and structured outputs for agentic workloads.',
          task: { id: 'c329a1f9-323d-4e91-b2aa-582dd4188d34', name: 'Text Generation', description: 'Family of generative text models, such as large language models (LLM), that can be adapted for a variety of natural language tasks.' },
          created_at: '2026-06-12 11:45:20.582',
          tags: [],
        },
        {
          id: 'cc80437b-9a8d-4f1a-9c77-9aaf0d226922',
          source: 1,
          name: '@cf/meta/llama-guard-3-8b',
          description: 'Llama Guard 3 is a Llama-3.1-8B pretrained model, fine-tuned for content safety classification.',
          task: { id: 'c329a1f9-323d-4e91-b2aa-582dd4188d34', name: 'Text Generation', description: 'Family of generative text models, such as large language models (LLM), that can be adapted for a variety of natural language tasks.' },
          tags: [],
          properties: [],
        },
        {
          name: '@cf/baai/bge-m3',
          properties: [
            { property_id: 'context_window', value: '60000' },
            { property_id: 'price', value: [{ unit: 'per M input tokens', price: 0.0118, currency: 'USD' }] },
          ],
          id: 'eed32bc1-8775-4985-89ce-dd1405508ad8',
          source: 1,
          description: 'Multi-Functionality, Multi-Linguality, and Multi-Granularity embeddings model.',
          task: { id: '0137cdcf-162a-4108-94f2-1ca59e8c65ee', name: 'Text Embeddings', description: 'Feature extraction models transform raw data into numerical features that can be processed while preserving the information in the original dataset.' },
          created_at: '2024-05-22 19:27:09.781',
          tags: [],
          deprecated: false,
        },
        {
          id: '200f0812-148c-48c1-915d-fb3277a94a08',
          source: 1,
          name: '@cf/openai/whisper-large-v3-turbo',
          description: 'Whisper is a pre-trained model for automatic speech recognition (ASR) and speech translation. ',
          task: { id: 'dfce1c48-2a81-462e-a7fd-de97ce985207', name: 'Automatic Speech Recognition', description: 'Automatic speech recognition (ASR) models convert a speech signal, typically an audio input, to text.' },
          created_at: '2024-05-22 00:02:18.656',
          tags: [],
          properties: [{ property_id: 'price', value: [{ unit: 'per audio minute', price: 0.00051, currency: 'USD' }] }],
        },
        {
          name: '@cf/nvidia/nemotron-3-120b-a12b',
          properties: [
            { property_id: 'context_window', value: '256000' },
            { property_id: 'price', value: [{ unit: 'per M input tokens', price: 0.5, currency: 'USD' }, { unit: 'per M output tokens', price: 1.5, currency: 'USD' }] },
            { property_id: 'function_calling', value: 'true' },
            { property_id: 'reasoning', value: 'true' },
          ],
          id: '43dbadb4-2b0a-47e9-8479-34a49b971f1e',
          source: 1,
          description: 'NVIDIA Nemotron 3 Super is a hybrid MoE model with leading accuracy for multi-agent applications and specialized agentic AI systems.',
          task: { id: 'c329a1f9-323d-4e91-b2aa-582dd4188d34', name: 'Text Generation', description: 'Family of generative text models, such as large language models (LLM), that can be adapted for a variety of natural language tasks.' },
          created_at: '2026-02-24 23:22:47.215',
          tags: [],
        },
      ],
      result_info: { count: 6, page: 1, per_page: 50, total_count: 6 },
    },
    expected: [
      // Paid prices are listed for every model: the daily free allocation covers them all, except
      // the ones marked require_workers_paid.
      { id: '@cf/zai-org/glm-4.7-flash', kind: 'chat', free: true },
      { id: '@cf/moonshotai/kimi-k2.7-code', kind: 'chat', free: false },
      { id: '@cf/meta/llama-guard-3-8b', kind: 'other', free: true },
      { id: '@cf/baai/bge-m3', kind: 'embedding', free: true },
      { id: '@cf/openai/whisper-large-v3-turbo', kind: 'transcription', free: true },
      { id: '@cf/nvidia/nemotron-3-120b-a12b', kind: 'chat', free: true },
    ],
  },
};

export default fixtures;
