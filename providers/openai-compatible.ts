import type { OpenAICompatibleProviderSettings } from '@ai-sdk/openai-compatible';
import type { LanguageModelV4 } from '@ai-sdk/provider';
import type { ModelFactoryOptions } from './types.ts';

/** Per-provider departures from the OpenAI wire format, for providers whose "compatible" API differs. */
export type OpenAICompatibleQuirks = Pick<OpenAICompatibleProviderSettings, 'includeUsage' | 'transformRequestBody' | 'supportsStructuredOutputs'>;

/** `Authorization: Bearer <key>`, how most providers take a key. */
export function bearerAuth(key: string): Record<string, string> {
  return { authorization: `Bearer ${key}` };
}

/** The factory shared by every provider that speaks OpenAI's chat/completions wire format. */
export async function openAICompatibleModel(name: string, options: ModelFactoryOptions, quirks: OpenAICompatibleQuirks = {}): Promise<LanguageModelV4> {
  const { createOpenAICompatible } = await import('@ai-sdk/openai-compatible');
  return createOpenAICompatible({
    name,
    baseURL: options.baseURL,
    fetch: options.fetch,
    includeUsage: true,
    ...quirks,
  }).chatModel(options.modelId);
}
