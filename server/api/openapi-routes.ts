import { chatSchema } from './chat/schema.ts';
import { embeddingsSchema } from './embeddings/schema.ts';
import { batchEmbedContentsSchema, countTokensSchema as geminiCountTokensSchema, embedContentSchema, generateContentSchema } from './gemini/schema.ts';
import { countTokensSchema, messagesSchema } from './messages/schema.ts';
import type { RouteDescriptor } from './openapi.ts';
import { responsesSchema } from './responses/schema.ts';

/**
 * Every endpoint Freeway serves, as the OpenAPI document describes it. Gemini's
 * methods share one route (`POST /v1beta/models/{model}:{method}`, and the same
 * under `/v1/models/`), described here one method each.
 */

const geminiMethods: ReadonlyArray<readonly [method: string, summary: string, request: RouteDescriptor['request'], response: string]> = [
  ['generateContent', "Gemini's generateContent", { name: 'GenerateContentRequest', schema: generateContentSchema }, 'A GenerateContentResponse.'],
  [
    'streamGenerateContent',
    "Gemini's streamGenerateContent: server-sent events with `alt=sse`, else one JSON array",
    { name: 'GenerateContentRequest', schema: generateContentSchema },
    'GenerateContentResponse chunks.',
  ],
  ['countTokens', "Gemini's token count, estimated without calling a provider", { name: 'CountTokensRequest', schema: geminiCountTokensSchema }, '`{totalTokens}`.'],
  ['embedContent', "Gemini's embedContent, routed as /v1/embeddings", { name: 'EmbedContentRequest', schema: embedContentSchema }, '`{embedding: {values}}`.'],
  ['batchEmbedContents', "Gemini's batchEmbedContents", { name: 'BatchEmbedContentsRequest', schema: batchEmbedContentsSchema }, '`{embeddings: [{values}]}`.'],
];

const transcriptionUpload = {
  type: 'object',
  required: ['file', 'model'],
  properties: {
    file: { type: 'string', contentMediaType: 'application/octet-stream', description: 'The audio: flac, m4a, mp3, mp4, mpeg, mpga, oga, ogg, wav or webm; at most AUDIO_MAX_BYTES.' },
    model: { type: 'string', description: '`free:transcribe` or a pinned `{provider}/{modelId}`.' },
    response_format: { enum: ['json', 'text', 'srt', 'verbose_json', 'vtt'] },
    language: { type: 'string' },
    prompt: { type: 'string' },
    temperature: { type: 'number' },
  },
};

export const servedRoutes: readonly RouteDescriptor[] = [
  { method: 'post', path: '/v1/chat/completions', group: 'Chat completions', summary: 'OpenAI chat completion, streaming or not', request: { name: 'ChatCompletionRequest', schema: chatSchema }, response: 'A chat.completion, or server-sent chat.completion.chunk events ending with `data: [DONE]`.' },
  { method: 'post', path: '/v1/responses', group: 'Responses', summary: 'OpenAI Responses API, stateless, streaming or not', request: { name: 'ResponsesRequest', schema: responsesSchema }, response: 'A response object, or its server-sent events.' },
  { method: 'post', path: '/v1/messages', group: 'Messages', summary: 'Anthropic Messages API, streaming or not', request: { name: 'MessagesRequest', schema: messagesSchema }, response: 'A message, or its server-sent events.' },
  { method: 'post', path: '/v1/messages/count_tokens', group: 'Messages', summary: "Anthropic's token count, estimated without calling a provider", request: { name: 'CountTokensMessagesRequest', schema: countTokensSchema }, response: '`{input_tokens}`.' },
  ...['/v1beta', '/v1'].flatMap((prefix) =>
    geminiMethods.map(([method, summary, request, response]): RouteDescriptor => ({ method: 'post', path: `${prefix}/models/{model}:${method}`, group: 'Gemini', summary, request, response })),
  ),
  { method: 'post', path: '/v1/embeddings', group: 'Embeddings', summary: 'OpenAI embeddings', request: { name: 'EmbeddingsRequest', schema: embeddingsSchema }, response: 'A list of embeddings.' },
  { method: 'post', path: '/v1/audio/transcriptions', group: 'Transcriptions', summary: 'OpenAI transcription (Whisper), multipart', multipart: transcriptionUpload, response: 'The transcript in the asked response_format.' },
  { method: 'get', path: '/v1/models', group: 'Models', summary: "The aliases and every model; Anthropic's list with an anthropic-version header", response: 'A list of models.' },
  { method: 'get', path: '/v1/models/{id}', group: 'Models', summary: 'One model (ids may contain /, @ and :)', response: 'A model object.' },
  { method: 'get', path: '/v1beta/models', group: 'Gemini', summary: "Gemini's model list", response: 'Models in Google\'s shape, paged by pageSize and pageToken.' },
  { method: 'get', path: '/v1beta/models/{model}', group: 'Gemini', summary: "One model in Google's shape", response: 'A model.' },
  { method: 'get', path: '/v1/providers', group: 'Freeway', summary: "Every provider and, for the keys sent, each key's state, quota and usage; `?check=1` checks the keys", response: 'The providers.' },
  { method: 'get', path: '/health', group: 'Freeway', summary: 'Health of the providers whose key headers were sent', response: '`{status: "ok", providers}`.' },
  { method: 'get', path: '/livez', group: 'Freeway', summary: 'Liveness probe', response: 'Alive.' },
  { method: 'get', path: '/readyz', group: 'Freeway', summary: 'Readiness probe: 503 while starting or shutting down', response: 'Ready, or degraded without Redis.' },
  { method: 'get', path: '/metrics', group: 'Freeway', summary: 'Prometheus metrics (METRICS)', response: 'Metrics in Prometheus\' text format.', responseType: 'text/plain' },
  { method: 'get', path: '/openapi.json', group: 'Freeway', summary: 'This document', response: 'An OpenAPI 3.1 document.' },
  { method: 'get', path: '/', group: 'Freeway', summary: 'The web console (CONSOLE=off removes it)', response: 'The console.', responseType: 'text/html' },
];
