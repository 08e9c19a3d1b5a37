import type { JSONObject, LanguageModelV4Usage } from '@ai-sdk/provider';

/** The usage of an answer whose upstream reported none: every count unknown. */
export const noUsage: LanguageModelV4Usage = {
  inputTokens: { total: undefined, noCache: undefined, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: undefined, text: undefined, reasoning: undefined },
};

type Raw = JSONObject;

const count = (value: unknown): number | undefined => (typeof value === 'number' && Number.isFinite(value) ? value : undefined);
const field = (value: unknown, name: string): unknown => (value !== null && typeof value === 'object' ? (value as Record<string, unknown>)[name] : undefined);
const minus = (a: number | undefined, b: number | undefined): number | undefined => (a === undefined || b === undefined ? undefined : a - b);
const plus = (a: number | undefined, b: number | undefined): number | undefined => (a === undefined ? b : b === undefined ? a : a + b);

/** OpenAI's `usage` object (every OpenAI-compatible provider, Groq's `x_groq.usage`, DeepSeek's cache fields). */
function fromOpenAI(raw: Raw): LanguageModelV4Usage {
  const prompt = count(raw.prompt_tokens);
  const completion = count(raw.completion_tokens);
  // DeepSeek reports its cache hits as prompt_cache_hit_tokens.
  const cached = count(field(raw.prompt_tokens_details, 'cached_tokens')) ?? count(raw.prompt_cache_hit_tokens);
  const reasoning = count(field(raw.completion_tokens_details, 'reasoning_tokens'));
  return {
    inputTokens: { total: prompt, noCache: minus(prompt, cached), cacheRead: cached, cacheWrite: undefined },
    outputTokens: { total: completion, text: minus(completion, reasoning), reasoning },
    raw,
  };
}

/** Gemini's `usageMetadata`. */
function fromGemini(raw: Raw): LanguageModelV4Usage {
  const prompt = count(raw.promptTokenCount);
  const input = prompt === undefined ? undefined : plus(prompt, count(raw.toolUsePromptTokenCount));
  const cached = count(raw.cachedContentTokenCount);
  const text = count(raw.candidatesTokenCount);
  const reasoning = count(raw.thoughtsTokenCount);
  return {
    inputTokens: { total: input, noCache: minus(input, cached), cacheRead: cached, cacheWrite: undefined },
    outputTokens: { total: plus(text, reasoning), text, reasoning },
    raw,
  };
}

/**
 * The usage the upstream really reported. The AI SDK's provider packages fill
 * counts the upstream left out with 0 (a missing `cached_tokens` becomes 0
 * cached tokens, a missing `prompt_tokens` 0 prompt tokens); this rebuilds the
 * counts from the upstream's own usage object (`raw`), so that a count the
 * upstream did not report stays undefined. Runs once per answer.
 */
export function reportedUsage(usage: LanguageModelV4Usage): LanguageModelV4Usage {
  const raw = usage.raw;
  if (raw === undefined || raw === null || typeof raw !== 'object') return usage;
  if ('prompt_tokens' in raw || 'completion_tokens' in raw || 'total_tokens' in raw) return fromOpenAI(raw);
  if ('promptTokenCount' in raw || 'candidatesTokenCount' in raw || 'totalTokenCount' in raw) return fromGemini(raw);
  return usage;
}
