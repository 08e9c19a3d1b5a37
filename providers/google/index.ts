import type { ProviderPlugin } from '../types.ts';

const google: ProviderPlugin = {
  id: 'google',
  name: 'Google',
  header: 'X-Google-Key',
  keyPatterns: [/AIza[A-Za-z0-9_-]+/],
  baseURL: 'https://generativelanguage.googleapis.com/v1beta',
  priority: 30,
  models: [
    { id: 'gemini-2.5-flash', capabilities: ['fast', 'vision', 'tool-use', 'long-context'], contextWindow: 1048576 },
    { id: 'gemini-2.5-flash-lite', capabilities: ['fast', 'tool-use', 'long-context'], contextWindow: 1048576 },
    { id: 'gemini-2.5-pro', capabilities: ['reasoning', 'vision', 'tool-use', 'long-context'], contextWindow: 1048576 },
    { id: 'gemini-3.6-flash', capabilities: ['fast', 'vision', 'tool-use', 'long-context'], contextWindow: 1048576, deprecated: true },
    { id: 'gemini-3.5-flash', capabilities: ['fast', 'vision', 'tool-use', 'long-context'], contextWindow: 1048576, deprecated: true },
  ],
  authHeaders: (key) => ({ 'x-goog-api-key': key }),
  // The SDK insists on a key at construction; every call's authHeaders replace it.
  createModel: async ({ modelId, baseURL, fetch }) => {
    const { createGoogleGenerativeAI } = await import('@ai-sdk/google');
    return createGoogleGenerativeAI({ apiKey: 'per-request', baseURL, fetch }).languageModel(modelId);
  },
};

export default google;
