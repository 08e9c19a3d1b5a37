import type { ProviderFixtures } from '../types.ts';

type Flags = Partial<Record<'completion_chat' | 'function_calling' | 'vision' | 'reasoning' | 'moderation' | 'audio_transcription' | 'classification', boolean>>;

/** A BaseModelCard of GET /v1/models, with the fields and capability flags its reference documents. */
function card(id: string, flags: Flags, maxContextLength: number, aliases: readonly string[], deprecation: string | null = null): unknown {
  return {
    id,
    object: 'model',
    created: 1775606400,
    owned_by: 'mistralai',
    capabilities: {
      completion_chat: false,
      completion_fim: false,
      function_calling: false,
      fine_tuning: false,
      vision: false,
      reasoning: false,
      classification: false,
      moderation: false,
      ocr: false,
      audio: false,
      audio_transcription: false,
      ...flags,
    },
    name: id,
    description: `${id}.`,
    max_context_length: maxContextLength,
    aliases,
    deprecation,
    deprecation_replacement_model: deprecation === null ? null : 'ministral-8b-2512',
    default_model_temperature: 0.3,
    type: 'base',
  };
}

const fixtures: ProviderFixtures = {
  sampleKey: 'Wq8Er3Ty6Ui1Op4As7Df2Gh5Jk9Lz0Xc',
  listing: {
    // The ModelList / BaseModelCard / FTModelCard shapes of the reference (the fine-tuned card is its own example);
    // ids, windows and capabilities from the model cards. A card with a deprecation date, the account's own
    // fine-tune, the embedding, moderation and transcription models do not join an alias.
    source: 'https://docs.mistral.ai/api/endpoint/models; capabilities from https://docs.mistral.ai/models',
    body: {
      object: 'list',
      data: [
        card('mistral-small-2603', { completion_chat: true, function_calling: true, vision: true, reasoning: true }, 262144, ['mistral-small-latest']),
        card('mistral-medium-3-5', { completion_chat: true, function_calling: true, vision: true, reasoning: true }, 262144, ['mistral-medium-3', 'mistral-medium-latest']),
        card('open-mistral-nemo-2407', { completion_chat: true, function_calling: true }, 131072, ['open-mistral-nemo'], '2026-07-31T12:00:00Z'),
        card('mistral-embed-2312', {}, 8192, ['mistral-embed']),
        card('mistral-moderation-2603', { moderation: true, classification: true }, 131072, []),
        card('voxtral-mini-transcribe-2602', { audio_transcription: true }, 16384, []),
        {
          id: 'ft:open-mistral-7b:587a6b29:20240514:7e773925',
          capabilities: { completion_chat: true, completion_fim: false, function_calling: false, fine_tuning: false, vision: false, classification: false },
          job: 'f2c3a1d9-6b7e-4c58-9a10-3d2e4f5a6b7c',
          root: 'open-mistral-7b',
          object: 'model',
          created: 1756746619,
          owned_by: '5a3b8c2d-1e4f-4a6b-9c7d-8e9f0a1b2c3d',
          max_context_length: 32768,
          aliases: [],
          TYPE: 'fine-tuned',
          archived: false,
        },
      ],
    },
    expected: [
      { id: 'mistral-small-2603', kind: 'chat', free: true },
      { id: 'mistral-medium-3-5', kind: 'chat', free: true },
      { id: 'open-mistral-nemo-2407', kind: 'chat', free: false },
      { id: 'mistral-embed-2312', kind: 'embedding', free: false },
      { id: 'mistral-moderation-2603', kind: 'other', free: false },
      { id: 'voxtral-mini-transcribe-2602', kind: 'transcription', free: false },
      { id: 'ft:open-mistral-7b:587a6b29:20240514:7e773925', kind: 'chat', free: false },
    ],
  },
  errors: [
    {
      // The free tier allows about one request per second; Mistral sends no Retry-After.
      source: 'https://docs.mistral.ai/deployment/laplateforme/tier/ (requests per second); body quoted in https://github.com/dnakov/anon-kode/issues/53',
      name: 'request rate limit',
      status: 429,
      body: { message: 'Requests rate limit exceeded' },
      kind: 'rate_limited',
      retryAfter: 60,
    },
    {
      source: 'https://docs.mistral.ai/api/ (401 Unauthorized)',
      name: 'invalid API key',
      status: 401,
      body: { message: 'Unauthorized', request_id: '0a1b2c3d4e5f60718293a4b5c6d7e8f9' },
      kind: 'invalid_key',
    },
    {
      source: 'https://docs.mistral.ai/api/ (400 with type invalid_model)',
      name: 'invalid model',
      status: 400,
      body: { object: 'error', message: 'Invalid model: mistral-nope-latest', type: 'invalid_model', param: null, code: '1500' },
      kind: 'model_unavailable',
    },
    {
      // A retired model is refused like an unknown one: mistral-large-2411, retired 2026-05-31, "now returns 400
      // (invalid model)" (docs.embabel.com's MistralAiModels.MISTRAL_LARGE_21 note); the body in the documented shape.
      source: 'https://docs.mistral.ai/models (retirement dates); 400 invalid model for a retired model per https://docs.embabel.com/embabel-agent/api-docs/1.0.0-SNAPSHOT/-embabel%20-agent%20-documentation/com.embabel.agent.api.models/-mistral-ai-models/-companion/-m-i-s-t-r-a-l_-l-a-r-g-e_21.html',
      name: 'retired model (400 invalid_model)',
      status: 400,
      body: { object: 'error', message: 'Invalid model: open-mistral-nemo', type: 'invalid_model', param: null, code: '1500' },
      kind: 'model_unavailable',
    },
    {
      source: 'https://docs.mistral.ai/api/ (400 invalid_request_message_error: prompt larger than the context window)',
      name: 'context length exceeded',
      status: 400,
      body: {
        object: 'error',
        message: 'Prompt contains 40000 tokens and 0 draft tokens, too large for model with 32768 maximum context length',
        type: 'invalid_request_message_error',
        param: null,
        code: '3051',
      },
      kind: 'context_too_long',
    },
  ],
};

export default fixtures;
