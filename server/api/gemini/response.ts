import type { LanguageModelV4FinishReason, LanguageModelV4Usage, SharedV4ProviderMetadata } from '@ai-sdk/provider';
import { systemContext, type EncoderContext, type WholeAnswer } from '../encoding.ts';
import type { GeminiRequest } from './types.ts';

/** Gemini's finish reasons Freeway reports. */
export type FinishReason = 'STOP' | 'MAX_TOKENS' | 'SAFETY' | 'OTHER';

/** Google sends STOP for an answer that ends in function calls too. */
export function toFinishReason(reason: LanguageModelV4FinishReason): FinishReason {
  switch (reason.unified) {
    case 'stop':
    case 'tool-calls':
      return 'STOP';
    case 'length':
      return 'MAX_TOKENS';
    case 'content-filter':
      return 'SAFETY';
    default:
      return 'OTHER';
  }
}

export interface UsageMetadata {
  promptTokenCount: number;
  candidatesTokenCount: number;
  totalTokenCount: number;
  cachedContentTokenCount?: number;
  thoughtsTokenCount?: number;
}

/**
 * Gemini's usageMetadata from what the upstream reported, or undefined when it did not
 * report both counts: never invented. Google counts thoughts apart from the candidates
 * (@ai-sdk/google reports output = candidates + thoughts, reasoning = thoughts), so the
 * candidates are the output less the reasoning when the reasoning is known.
 */
export function toUsageMetadata(usage: LanguageModelV4Usage): UsageMetadata | undefined {
  const input = usage.inputTokens.total;
  const output = usage.outputTokens.total;
  if (input === undefined || output === undefined) return undefined;
  const reasoning = usage.outputTokens.reasoning;
  const metadata: UsageMetadata = { promptTokenCount: input, candidatesTokenCount: output - (reasoning ?? 0), totalTokenCount: input + output };
  if (usage.inputTokens.cacheRead !== undefined) metadata.cachedContentTokenCount = usage.inputTokens.cacheRead;
  if (reasoning !== undefined) metadata.thoughtsTokenCount = reasoning;
  return metadata;
}

/** Google's own models' thought signature, as @ai-sdk/google hands it on; never one of another provider's, never made up. */
export function signatureOf(metadata: SharedV4ProviderMetadata | undefined): string | undefined {
  const signature = metadata?.google?.thoughtSignature;
  return typeof signature === 'string' && signature !== '' ? signature : undefined;
}

export type OutPart =
  | { text: string; thought?: true; thoughtSignature?: string }
  | { functionCall: { id: string; name: string; args: Record<string, unknown> }; thoughtSignature?: string };

/** A call's arguments (JSON text) as Gemini's `args` object; text that is not a JSON object becomes `{}`. */
function argsOf(input: string): Record<string, unknown> {
  try {
    const args: unknown = JSON.parse(input === '' ? '{}' : input);
    return typeof args === 'object' && args !== null && !Array.isArray(args) ? (args as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

/** A text or thought part with Google's signature, when its model gave one. */
function signed(part: { text: string; thought?: true }, metadata: SharedV4ProviderMetadata | undefined): OutPart {
  const signature = signatureOf(metadata);
  return signature === undefined ? part : { ...part, thoughtSignature: signature };
}

export function callPart(id: string, name: string, input: string, metadata: SharedV4ProviderMetadata | undefined): OutPart {
  const signature = signatureOf(metadata);
  const part: OutPart = { functionCall: { id, name, args: argsOf(input) } };
  return signature === undefined ? part : { ...part, thoughtSignature: signature };
}

/** Whether the caller asked for the model's thoughts (`thinkingConfig.includeThoughts`): Google leaves them out otherwise. */
export const showsThoughts = (request: GeminiRequest): boolean => request.generationConfig?.thinkingConfig?.includeThoughts === true;

/** What every answer says of itself: the catalog id of the model that answered, and an id of the answer. */
export interface AnswerIds {
  readonly modelVersion: string;
  readonly responseId: string;
}

export const responseIdOf = (context: EncoderContext): string => context.newId('', 32);

/**
 * A whole answer -> a GenerateContentResponse: one candidate whose parts are the
 * thoughts (`thought: true`, when the caller asked for them), the text and the function
 * calls, its finish reason, and the usage the upstream reported.
 */
export function toGenerateContentResponse(result: WholeAnswer, request: GeminiRequest, modelVersion: string, context: EncoderContext = systemContext): Record<string, unknown> {
  const parts: OutPart[] = [];
  for (const part of result.content) {
    if (part.type === 'reasoning') {
      if (showsThoughts(request) && part.text !== '') parts.push(signed({ text: part.text, thought: true }, part.providerMetadata));
    } else if (part.type === 'text') {
      if (part.text !== '') parts.push(signed({ text: part.text }, part.providerMetadata));
    } else parts.push(callPart(part.toolCallId, part.toolName, typeof part.input === 'string' ? part.input : JSON.stringify(part.input), part.providerMetadata));
  }
  if (parts.length === 0) parts.push({ text: '' });
  const body: Record<string, unknown> = { candidates: [{ content: { role: 'model', parts }, finishReason: toFinishReason(result.finishReason), index: 0 }] };
  const usage = toUsageMetadata(result.usage);
  if (usage) body.usageMetadata = usage;
  body.modelVersion = modelVersion;
  body.responseId = responseIdOf(context);
  return body;
}
