import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import type { LanguageModelV4 } from '@ai-sdk/provider';
import type { ModelFactoryOptions } from './types.ts';

/** The factory shared by every provider that speaks OpenAI's chat/completions wire format. */
export function openAICompatibleModel(name: string, options: ModelFactoryOptions): LanguageModelV4 {
  return createOpenAICompatible({
    name,
    baseURL: options.baseURL,
    apiKey: options.key,
    fetch: options.fetch,
    includeUsage: true,
  }).chatModel(options.modelId);
}
