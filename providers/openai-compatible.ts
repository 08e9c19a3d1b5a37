import { createOpenAICompatible, type OpenAICompatibleProviderSettings } from '@ai-sdk/openai-compatible';
import type { LanguageModelV4 } from '@ai-sdk/provider';
import type { ModelFactoryOptions } from './types.ts';

/** Per-provider departures from the OpenAI wire format, for providers whose "compatible" API refuses some fields. */
export type OpenAICompatibleQuirks = Pick<OpenAICompatibleProviderSettings, 'includeUsage' | 'transformRequestBody'>;

/** The factory shared by every provider that speaks OpenAI's chat/completions wire format. */
export function openAICompatibleModel(name: string, options: ModelFactoryOptions, quirks: OpenAICompatibleQuirks = {}): LanguageModelV4 {
  return createOpenAICompatible({
    name,
    baseURL: options.baseURL,
    apiKey: options.key,
    fetch: options.fetch,
    includeUsage: true,
    ...quirks,
  }).chatModel(options.modelId);
}
