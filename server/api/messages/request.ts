import type {
  LanguageModelV4CallOptions,
  LanguageModelV4FilePart,
  LanguageModelV4FunctionTool,
  LanguageModelV4Prompt,
  LanguageModelV4TextPart,
  LanguageModelV4ToolCallPart,
  LanguageModelV4ToolChoice,
  LanguageModelV4ToolResultPart,
} from '@ai-sdk/provider';
import type { Capability, RequestExtras } from '../../../providers/types.ts';
import { imageURLToFilePart } from '../image-url.ts';
import type { DocumentBlock, ImageBlock, MessagesRequest, TextBlock, ToolChoice } from './types.ts';
import type { CallOptions } from '../../routing/index.ts';

/**
 * Freeway's tool_use ids are the upstream's call ids behind Anthropic's `toolu_`
 * prefix; the prefix comes off again on the way back, so a provider that checks
 * the ids it issued (Mistral's are 9 characters) sees its own.
 */
export const TOOL_ID_PREFIX = 'toolu_';

export const toToolUseId = (upstreamId: string): string => (upstreamId.startsWith(TOOL_ID_PREFIX) ? upstreamId : TOOL_ID_PREFIX + upstreamId);

const toUpstreamId = (id: string): string => (id.startsWith(TOOL_ID_PREFIX) && id.length > TOOL_ID_PREFIX.length ? id.slice(TOOL_ID_PREFIX.length) : id);

function joinText(content: string | readonly TextBlock[]): string {
  if (typeof content === 'string') return content;
  let text = '';
  for (const block of content) text += text === '' ? block.text : `\n\n${block.text}`;
  return text;
}

function imagePart(block: ImageBlock): LanguageModelV4FilePart {
  const { source } = block;
  if (source.type === 'base64') return { type: 'file', mediaType: source.media_type, data: { type: 'data', data: source.data } };
  // Validation checked the URL; the shared helper names its media type from the extension.
  return imageURLToFilePart(source.url, 'source.url');
}

/** A document: text ones as the text a model reads, PDFs as file parts (for models with the `pdf` capability). */
function documentParts(block: DocumentBlock): Array<LanguageModelV4TextPart | LanguageModelV4FilePart> {
  const parts: Array<LanguageModelV4TextPart | LanguageModelV4FilePart> = [];
  const heading = [block.title, block.context].filter((line): line is string => typeof line === 'string' && line !== '').join('\n');
  if (heading !== '') parts.push({ type: 'text', text: heading });
  const { source } = block;
  if (source.type === 'base64') parts.push({ type: 'file', mediaType: 'application/pdf', data: { type: 'data', data: source.data } });
  else if (source.type === 'url') parts.push({ type: 'file', mediaType: 'application/pdf', data: { type: 'url', url: new URL(source.url) } });
  else if (source.type === 'text') parts.push({ type: 'text', text: source.data });
  else if (source.type === 'content') {
    if (typeof source.content === 'string') parts.push({ type: 'text', text: source.content });
    else for (const inner of source.content) parts.push(inner.type === 'text' ? { type: 'text', text: inner.text } : imagePart(inner));
  }
  return parts;
}

function toPrompt(request: MessagesRequest): LanguageModelV4Prompt {
  const prompt: LanguageModelV4Prompt = [];
  // One system message first, with `system` and then every system message of the
  // conversation in order: Gemini takes system text only at the start, and
  // Claude Code sends its environment as a system message after the first turn.
  let system = request.system === undefined || request.system === null ? '' : joinText(request.system);
  for (const message of request.messages) {
    if (message.role !== 'system') continue;
    const text = joinText(message.content);
    if (text !== '') system = system === '' ? text : `${system}\n\n${text}`;
  }
  if (system !== '') prompt.push({ role: 'system', content: system });
  // Tool results name their tool by the id of the call; Gemini needs the name too.
  const toolNames = new Map<string, string>();
  for (const message of request.messages) {
    if (message.role === 'system') continue;
    if (typeof message.content === 'string') {
      if (message.role === 'user') prompt.push({ role: 'user', content: [{ type: 'text', text: message.content }] });
      else prompt.push({ role: 'assistant', content: [{ type: 'text', text: message.content }] });
      continue;
    }
    if (message.role === 'assistant') {
      const content: Array<LanguageModelV4TextPart | LanguageModelV4ToolCallPart> = [];
      for (const block of message.content) {
        if (block.type === 'text') content.push({ type: 'text', text: block.text });
        else if (block.type === 'tool_use') {
          const id = toUpstreamId(block.id);
          toolNames.set(id, block.name);
          content.push({ type: 'tool-call', toolCallId: id, toolName: block.name, input: block.input });
        }
        // Thinking blocks are the private reasoning of whichever model wrote them: not sent on.
      }
      if (content.length > 0) prompt.push({ role: 'assistant', content });
      continue;
    }
    // A user turn: its tool results become a tool message first (they answer the
    // previous assistant turn), then the rest, with images from tool results, as
    // a user message that every vision model understands.
    const results: LanguageModelV4ToolResultPart[] = [];
    const content: Array<LanguageModelV4TextPart | LanguageModelV4FilePart> = [];
    const resultImages: LanguageModelV4FilePart[] = [];
    for (const block of message.content) {
      switch (block.type) {
        case 'text':
          content.push({ type: 'text', text: block.text });
          break;
        case 'image':
          content.push(imagePart(block));
          break;
        case 'document':
          content.push(...documentParts(block));
          break;
        case 'tool_result': {
          const id = toUpstreamId(block.tool_use_id);
          let text = '';
          if (typeof block.content === 'string') text = block.content;
          else {
            for (const inner of block.content ?? []) {
              const parts = inner.type === 'text' ? [{ type: 'text' as const, text: inner.text }] : inner.type === 'image' ? [imagePart(inner)] : documentParts(inner);
              for (const part of parts) {
                if (part.type === 'text') text += text === '' ? part.text : `\n\n${part.text}`;
                else resultImages.push(part);
              }
            }
          }
          results.push({
            type: 'tool-result',
            toolCallId: id,
            toolName: toolNames.get(id) ?? 'tool',
            output: block.is_error === true ? { type: 'error-text', value: text } : { type: 'text', value: text },
          });
          break;
        }
      }
    }
    if (results.length > 0) prompt.push({ role: 'tool', content: results });
    if (resultImages.length > 0 || content.length > 0) prompt.push({ role: 'user', content: [...resultImages, ...content] });
  }
  return prompt;
}

function toToolChoice(choice: ToolChoice | undefined): LanguageModelV4ToolChoice | undefined {
  if (choice === undefined || choice === null) return undefined;
  switch (choice.type) {
    case 'any':
      return { type: 'required' };
    case 'tool':
      return { type: 'tool', toolName: choice.name };
    default:
      return { type: choice.type };
  }
}

function toTools(request: MessagesRequest): LanguageModelV4FunctionTool[] | undefined {
  if (!request.tools || request.tools.length === 0) return undefined;
  return request.tools.map((tool) => ({
    type: 'function',
    name: tool.name,
    description: tool.description,
    inputSchema: tool.input_schema as LanguageModelV4FunctionTool['inputSchema'],
  }));
}

/**
 * The AI SDK's reasoning effort: `output_config.effort` (`xhigh` and `max` as
 * `high`), else
 * `thinking`'s budget: under 4,096 tokens is `low`, under 16,384 `medium`, more
 * `high`. `adaptive` leaves it to the model; `disabled` sends nothing.
 */
function toReasoning(request: MessagesRequest): LanguageModelV4CallOptions['reasoning'] {
  const effort = request.output_config?.effort;
  // low, medium and high are the levels every provider that takes an effort knows.
  if (effort !== undefined && effort !== null) return effort === 'xhigh' || effort === 'max' ? 'high' : effort;
  const thinking = request.thinking;
  if (thinking?.type !== 'enabled') return undefined;
  const budget = thinking.budget_tokens;
  return budget < 4096 ? 'low' : budget < 16384 ? 'medium' : 'high';
}

/** Messages request -> AI SDK language-model call options. */
export function toCallOptions(request: MessagesRequest): CallOptions {
  return {
    prompt: toPrompt(request),
    maxOutputTokens: request.max_tokens,
    temperature: request.temperature ?? undefined,
    topP: request.top_p ?? undefined,
    topK: request.top_k ?? undefined,
    stopSequences: request.stop_sequences && request.stop_sequences.length > 0 ? request.stop_sequences : undefined,
    tools: toTools(request),
    toolChoice: toToolChoice(request.tool_choice),
    reasoning: toReasoning(request),
    responseFormat: request.output_config?.format ? { type: 'json', schema: request.output_config.format.schema } : undefined,
  };
}

interface Seen {
  images: boolean;
  pdfs: boolean;
}

/** Notes the images and PDFs among blocks, also inside tool results and content documents. */
function scan(blocks: ReadonlyArray<{ type: string; content?: unknown; source?: unknown }>, seen: Seen): void {
  for (const block of blocks) {
    if (block.type === 'image') seen.images = true;
    else if (block.type === 'tool_result' && Array.isArray(block.content)) scan(block.content as typeof blocks, seen);
    else if (block.type === 'document') {
      const source = block.source as { type: string; content?: unknown };
      if (source.type === 'base64' || source.type === 'url') seen.pdfs = true;
      else if (source.type === 'content' && Array.isArray(source.content)) scan(source.content as typeof blocks, seen);
    }
  }
}

/** Capabilities a model must have to take this request at all. */
export function requiredCapabilities(request: MessagesRequest): Capability[] {
  const needs: Capability[] = [];
  if (request.tools && request.tools.length > 0 && request.tool_choice?.type !== 'none') needs.push('tool-use');
  const seen: Seen = { images: false, pdfs: false };
  for (const message of request.messages) {
    if (message.role === 'user' && typeof message.content !== 'string') scan(message.content, seen);
  }
  if (seen.images) needs.push('vision');
  if (seen.pdfs) needs.push('pdf');
  return needs;
}

/** What the request asks of the provider beyond the call options: `disable_parallel_tool_use` as at most one call. */
export function toExtras(request: MessagesRequest): Omit<RequestExtras, 'user'> {
  const choice = request.tool_choice;
  return choice && choice.type !== 'none' && choice.disable_parallel_tool_use === true ? { parallelToolCalls: false } : {};
}
