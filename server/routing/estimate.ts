import type { LanguageModelV4CallOptions, LanguageModelV4Message } from '@ai-sdk/provider';

/**
 * How many tokens a request's input holds, estimated without any tokenizer, for every client
 * API alike (it reads the AI SDK's prompt, which each API maps its request into): the characters
 * of the system prompt, the messages' text and reasoning, tool calls' names and inputs (as JSON),
 * tool results, text files, and the tools' names, descriptions and input schemas (as JSON),
 * divided by 4 and rounded up, plus 1,600 tokens per image or other file. It is the estimate of
 * `/v1/messages/count_tokens`; routing uses it to skip a model whose window or per-request limit
 * the request cannot fit (with a margin, FIT_MARGIN, for its error).
 */

/** Characters per token of the estimate: about right for English prose and code with most tokenizers. */
export const CHARS_PER_TOKEN = 4;
/** Tokens counted for each image or other file: Anthropic's figure for an image of about 1.15 megapixels, the largest sent unscaled. */
export const IMAGE_TOKENS = 1600;

type Part = Exclude<LanguageModelV4Message, { role: 'system' }>['content'][number];

const jsonLength = (value: unknown): number => (value === undefined ? 0 : (JSON.stringify(value)?.length ?? 0));

/** The characters of one part, and whether it counts as an image (a file that is not text). */
function partSize(part: Part): { chars: number; files: number } {
  switch (part.type) {
    case 'text':
    case 'reasoning':
      return { chars: part.text.length, files: 0 };
    case 'file':
      return part.data.type === 'text' ? { chars: part.data.text.length, files: 0 } : { chars: 0, files: 1 };
    case 'tool-call':
      return { chars: part.toolName.length + (typeof part.input === 'string' ? part.input.length : jsonLength(part.input)), files: 0 };
    case 'tool-result': {
      const output = part.output;
      switch (output.type) {
        case 'text':
        case 'error-text':
          return { chars: output.value.length, files: 0 };
        case 'json':
        case 'error-json':
          return { chars: jsonLength(output.value), files: 0 };
        case 'execution-denied':
          return { chars: output.reason?.length ?? 0, files: 0 };
        case 'content': {
          let chars = 0;
          let files = 0;
          for (const item of output.value) {
            if (item.type === 'text') chars += item.text.length;
            else files += 1;
          }
          return { chars, files };
        }
        default:
          return { chars: 0, files: 0 };
      }
    }
    default:
      return { chars: 0, files: 0 };
  }
}

export function estimateInputTokens({ prompt, tools }: Pick<LanguageModelV4CallOptions, 'prompt' | 'tools'>): number {
  let chars = 0;
  let files = 0;
  for (const message of prompt) {
    if (message.role === 'system') {
      chars += message.content.length;
      continue;
    }
    for (const part of message.content) {
      const size = partSize(part);
      chars += size.chars;
      files += size.files;
    }
  }
  for (const tool of tools ?? []) {
    if (tool.type === 'function') chars += tool.name.length + (tool.description?.length ?? 0) + jsonLength(tool.inputSchema);
  }
  return Math.ceil(chars / CHARS_PER_TOKEN) + files * IMAGE_TOKENS;
}
