import type { RouteHandlerName, RouteRow } from '../http/route-table.ts';
import { chatSchema } from './chat/schema.ts';
import { embeddingsSchema } from './embeddings/schema.ts';
import { batchEmbedContentsSchema, countTokensSchema as geminiCountTokensSchema, embedContentSchema, generateContentSchema } from './gemini/schema.ts';
import { countTokensSchema, messagesSchema } from './messages/schema.ts';
import type { RouteDescriptor } from './openapi.ts';
import { responsesSchema } from './responses/schema.ts';
import type { Schema } from './schema-parts.ts';

/**
 * The route table's rows as the OpenAPI document describes them, each with the
 * JSON Schema its body is checked against. Gemini's one route per prefix
 * (`{model}:{method}`) is described one method each.
 */

type Body = RouteDescriptor['request'];

/** The body schema of each handler that takes JSON, by the name the document gives it. */
const bodies: Partial<Record<RouteHandlerName, Body>> = {
  chat: { name: 'ChatCompletionRequest', schema: chatSchema },
  responses: { name: 'ResponsesRequest', schema: responsesSchema },
  messages: { name: 'MessagesRequest', schema: messagesSchema },
  'messages.countTokens': { name: 'CountTokensMessagesRequest', schema: countTokensSchema },
  embeddings: { name: 'EmbeddingsRequest', schema: embeddingsSchema },
};

/** What a 200 of each handler answers. */
const answers: Record<Exclude<RouteHandlerName, 'gemini'>, string> = {
  livez: 'Alive.',
  readyz: 'Ready, or `degraded` without Redis.',
  metrics: "Metrics in Prometheus' text format.",
  health: '`{status: "ok", providers}`.',
  providers: 'The providers, and the state, quota and usage of each key sent.',
  'models.list': 'A list of models.',
  'models.retrieve': 'A model object.',
  'gemini.models.list': "Models in Google's shape, paged by pageSize and pageToken.",
  'gemini.models.get': "A model in Google's shape.",
  chat: 'A chat.completion, or server-sent chat.completion.chunk events ending with `data: [DONE]`.',
  responses: 'A response object, or its server-sent events.',
  messages: 'A message, or its server-sent events.',
  'messages.countTokens': '`{input_tokens}`.',
  embeddings: 'A list of embeddings.',
  transcriptions: 'The transcript in the asked response_format.',
  openapi: 'An OpenAPI 3.1 document.',
  'console.page': 'The console.',
  'console.file': "The console's script, style or icon.",
};

/** Media types of answers that are not JSON. */
const answerTypes: Partial<Record<RouteHandlerName, string>> = { metrics: 'text/plain', 'console.page': 'text/html', 'console.file': 'application/octet-stream' };

const geminiMethods: ReadonlyArray<readonly [method: string, request: NonNullable<Body>, answer: string]> = [
  ['generateContent', { name: 'GenerateContentRequest', schema: generateContentSchema }, 'A GenerateContentResponse.'],
  ['streamGenerateContent', { name: 'GenerateContentRequest', schema: generateContentSchema }, 'GenerateContentResponse chunks: server-sent events with `alt=sse`, else one JSON array.'],
  ['countTokens', { name: 'CountTokensRequest', schema: geminiCountTokensSchema }, '`{totalTokens}`, estimated without calling a provider.'],
  ['embedContent', { name: 'EmbedContentRequest', schema: embedContentSchema }, '`{embedding: {values}}`.'],
  ['batchEmbedContents', { name: 'BatchEmbedContentsRequest', schema: batchEmbedContentsSchema }, '`{embeddings: [{values}]}`.'],
];

const transcriptionUpload: Schema = {
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

const groups: Record<NonNullable<RouteRow['api']>, string> = {
  chat: 'Chat completions',
  responses: 'Responses',
  messages: 'Messages',
  gemini: 'Gemini',
  embeddings: 'Embeddings',
  transcriptions: 'Transcriptions',
};

/** The path as OpenAPI templates it: `{id}` for Express's `*id`. */
const templated = (row: RouteRow): string => row.documentedPath ?? row.path.replace(/\*(\w+)$/, '{$1}');

/** Every row of the route table, as the document describes it. */
export function documentedRoutes(rows: readonly RouteRow[]): RouteDescriptor[] {
  return rows.flatMap((row): RouteDescriptor[] => {
    const method = row.method === 'GET' ? 'get' : 'post';
    const group = row.api === undefined ? (row.handler.startsWith('gemini') ? groups.gemini : row.handler.startsWith('models') ? 'Models' : 'Freeway') : groups[row.api];
    const path = templated(row);
    if (row.handler === 'gemini') {
      return geminiMethods.map(([name, request, response]) => ({ method, path: path.replace('{method}', name), group, summary: `${row.summary.split(':')[0]}: ${name}`, request, response }));
    }
    const described: RouteDescriptor = { method, path, group, summary: row.summary, response: answers[row.handler] };
    const request = bodies[row.handler];
    const responseType = answerTypes[row.handler];
    return [
      {
        ...described,
        ...(request ? { request } : {}),
        ...(row.body === 'multipart' ? { multipart: transcriptionUpload } : {}),
        ...(responseType ? { responseType } : {}),
      },
    ];
  });
}
