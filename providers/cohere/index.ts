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
  // unsupported parameters (a request with stream_options is refused). Freeway
  // always streams upstream, so sending it would fail every Cohere call. Usage is
  // still read from the stream whenever Cohere sends it.
  authHeaders: bearerAuth,
  createModel: (options) =>
    openAICompatibleModel('cohere', options, {
      includeUsage: false,
      transformRequestBody: ({ user: _user, stream_options: _streamOptions, ...body }) => body,
    }),
};

export default cohere;
