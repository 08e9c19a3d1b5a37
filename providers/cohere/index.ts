import { bearerAuth, openAICompatibleModel } from '../openai-compatible.ts';
import type { ProviderPlugin } from '../types.ts';

const cohere: ProviderPlugin = {
  id: 'cohere',
  name: 'Cohere',
  header: 'X-Cohere-Key',
  keyPatterns: [],
  baseURL: 'https://api.cohere.ai/compatibility/v1',
  priority: 130,
  models: [
    { id: 'command-a-plus-05-2026', capabilities: ['tool-use', 'long-context'], contextWindow: 131072 },
    { id: 'command-a-reasoning-08-2025', capabilities: ['reasoning', 'tool-use', 'long-context'], contextWindow: 262144 },
    { id: 'command-r-plus-08-2024', capabilities: ['tool-use', 'long-context'], contextWindow: 131072 },
    { id: 'command-r-08-2024', capabilities: ['fast', 'tool-use', 'long-context'], contextWindow: 131072 },
    { id: 'command-a-03-2025', capabilities: ['tool-use', 'long-context'], contextWindow: 131072 },
  ],
  // Cohere's Compatibility API lists `stream_options` and `user` among its
  // unsupported parameters (a request with stream_options is refused), so they
  // are never sent, and Cohere's streams carry no usage. Callers that do not
  // stream therefore get a non-streaming call, whose answer carries usage.
  // https://docs.cohere.com/docs/compatibility-api
  usageInStreams: false,
  authHeaders: bearerAuth,
  createModel: (options) =>
    openAICompatibleModel('cohere', options, {
      includeUsage: false,
      transformRequestBody: ({ user: _user, stream_options: _streamOptions, ...body }) => body,
    }),
};

export default cohere;
