import type { LanguageModelV4ToolResultOutput } from '@ai-sdk/provider';
import type { CallOptions } from '../routing/index.ts';

/** Characters per token of the estimate: about right for English prose and code with most tokenizers. */
export const CHARS_PER_TOKEN = 4;
/** Tokens counted for each image: Anthropic's figure for an image of about 1.15 megapixels, the largest sent unscaled. */
export const IMAGE_TOKENS = 1600;

/** What the estimate reads of a request: its AI SDK prompt and tools, as a client API maps them. */
export type EstimatedInput = Pick<CallOptions, 'prompt' | 'tools'>;

interface Tally {
  chars: number;
  files: number;
}

const inputLength = (input: unknown): number => (typeof input === 'string' ? input.length : JSON.stringify(input ?? {}).length);

function countOutput(output: LanguageModelV4ToolResultOutput, tally: Tally): void {
  switch (output.type) {
    case 'text':
    case 'error-text':
      tally.chars += output.value.length;
      break;
    case 'json':
    case 'error-json':
      tally.chars += JSON.stringify(output.value).length;
      break;
    case 'execution-denied':
      tally.chars += output.reason?.length ?? 0;
      break;
    case 'content':
      for (const part of output.value) {
        if (part.type === 'text') tally.chars += part.text.length;
        else tally.files += 1;
      }
      break;
  }
}

/**
 * The input tokens of a request, estimated without calling any provider (the model that
 * would answer is not known in advance): the characters of the system text, the messages'
 * text and reasoning, tool calls' names and inputs (as JSON), tool results, and the tools'
 * names, descriptions and input schemas (as JSON), divided by 4 and rounded up, plus 1,600
 * tokens per image and per PDF (a PDF of many pages is undercounted). What is counted is
 * what goes upstream: the prompt as a client API mapped it (`/v1/messages/count_tokens`,
 * Gemini's countTokens).
 */
export function estimateInputTokens({ prompt, tools }: EstimatedInput): number {
  const tally: Tally = { chars: 0, files: 0 };
  for (const message of prompt) {
    if (message.role === 'system') {
      tally.chars += message.content.length;
      continue;
    }
    for (const part of message.content) {
      switch (part.type) {
        case 'text':
        case 'reasoning':
          tally.chars += part.text.length;
          break;
        case 'file':
          if (part.data.type === 'text') tally.chars += part.data.text.length;
          else tally.files += 1;
          break;
        case 'tool-call':
          tally.chars += part.toolName.length + inputLength(part.input);
          break;
        case 'tool-result':
          countOutput(part.output, tally);
          break;
      }
    }
  }
  for (const tool of tools ?? []) {
    tally.chars += tool.name.length;
    if (tool.type === 'function') tally.chars += (tool.description?.length ?? 0) + JSON.stringify(tool.inputSchema).length;
  }
  return Math.ceil(tally.chars / CHARS_PER_TOKEN) + tally.files * IMAGE_TOKENS;
}
