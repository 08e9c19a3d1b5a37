import type { MessagesRequest, TextBlock } from './types.ts';

/** Characters per token of the estimate: about right for English prose and code with most tokenizers. */
export const CHARS_PER_TOKEN = 4;
/** Tokens counted for each image: Anthropic's figure for an image of about 1.15 megapixels, the largest sent unscaled. */
export const IMAGE_TOKENS = 1600;

function textLength(content: string | readonly TextBlock[]): number {
  if (typeof content === 'string') return content.length;
  let length = 0;
  for (const block of content) length += block.text.length;
  return length;
}

/**
 * `POST /v1/messages/count_tokens`: an estimate made without calling any
 * provider, since the model that would answer is not known in advance. The
 * characters of the system prompt, the messages' text, tool calls' names and
 * inputs (as JSON), tool results and text documents, and the tools' names,
 * descriptions and input schemas (as JSON), divided by 4 and rounded up, plus
 * 1,600 tokens per image and per PDF (a PDF of many pages is undercounted).
 */
export function estimateInputTokens(request: MessagesRequest): number {
  let chars = 0;
  let images = 0;
  const countBlocks = (blocks: ReadonlyArray<{ type: string } & Record<string, unknown>>): void => {
    for (const block of blocks) {
      switch (block.type) {
        case 'text':
          chars += (block.text as string).length;
          break;
        case 'thinking':
          chars += (block.thinking as string).length;
          break;
        case 'image':
          images += 1;
          break;
        case 'tool_use':
          chars += (block.name as string).length + JSON.stringify(block.input).length;
          break;
        case 'tool_result': {
          const content = block.content;
          if (typeof content === 'string') chars += content.length;
          else if (Array.isArray(content)) countBlocks(content as typeof blocks);
          break;
        }
        case 'document': {
          const source = block.source as { type: string; data?: string; content?: unknown };
          if (typeof block.title === 'string') chars += block.title.length;
          if (typeof block.context === 'string') chars += block.context.length;
          if (source.type === 'base64' || source.type === 'url') images += 1;
          else if (source.type === 'text') chars += (source.data as string).length;
          else if (typeof source.content === 'string') chars += source.content.length;
          else if (Array.isArray(source.content)) countBlocks(source.content as typeof blocks);
          break;
        }
      }
    }
  };
  if (request.system !== undefined && request.system !== null) chars += textLength(request.system);
  for (const message of request.messages) {
    if (typeof message.content === 'string') chars += message.content.length;
    else countBlocks(message.content as unknown as ReadonlyArray<{ type: string } & Record<string, unknown>>);
  }
  for (const tool of request.tools ?? []) {
    chars += tool.name.length + (tool.description?.length ?? 0) + JSON.stringify(tool.input_schema).length;
  }
  return Math.ceil(chars / CHARS_PER_TOKEN) + images * IMAGE_TOKENS;
}
