import type {
  LanguageModelV4FilePart,
  LanguageModelV4FunctionTool,
  LanguageModelV4Message,
  LanguageModelV4Prompt,
  LanguageModelV4TextPart,
  LanguageModelV4ToolCallPart,
  LanguageModelV4ToolChoice,
} from '@ai-sdk/provider';
import type { Capability } from '../../../providers/types.ts';
import { imageURLToFilePart } from '../image-url.ts';
import type { CallOptions } from '../../routing/upstream.ts';
import type { ChatMessage, ChatRequest, TextPart, ToolChoice } from './types.ts';

function joinText(content: string | readonly TextPart[] | null | undefined): string {
  if (content == null) return '';
  if (typeof content === 'string') return content;
  let text = '';
  for (const part of content) text += part.text;
  return text;
}

function parseArguments(raw: string): unknown {
  if (raw === '') return {};
  try {
    return JSON.parse(raw);
  } catch {
    return raw;
  }
}

function toPrompt(messages: readonly ChatMessage[]): LanguageModelV4Prompt {
  const prompt: LanguageModelV4Prompt = [];
  // Tool results name their tool by the id of the call; Gemini needs the name too.
  const toolNames = new Map<string, string>();
  for (const [index, message] of messages.entries()) {
    switch (message.role) {
      case 'system':
      case 'developer':
        prompt.push({ role: 'system', content: joinText(message.content) });
        break;
      case 'user': {
        const content: Array<LanguageModelV4TextPart | LanguageModelV4FilePart> = [];
        if (typeof message.content === 'string') content.push({ type: 'text', text: message.content });
        else {
          for (const [at, part] of message.content.entries()) {
            content.push(part.type === 'text' ? { type: 'text', text: part.text } : imageURLToFilePart(part.image_url.url, `messages.${index}.content.${at}.image_url.url`));
          }
        }
        prompt.push({ role: 'user', content });
        break;
      }
      case 'assistant': {
        const content: Array<LanguageModelV4TextPart | LanguageModelV4ToolCallPart> = [];
        const text = joinText(message.content);
        if (text !== '') content.push({ type: 'text', text });
        for (const call of message.tool_calls ?? []) {
          toolNames.set(call.id, call.function.name);
          content.push({ type: 'tool-call', toolCallId: call.id, toolName: call.function.name, input: parseArguments(call.function.arguments) });
        }
        prompt.push({ role: 'assistant', content });
        break;
      }
      case 'tool': {
        const result = {
          type: 'tool-result' as const,
          toolCallId: message.tool_call_id,
          toolName: toolNames.get(message.tool_call_id) ?? 'tool',
          output: { type: 'text' as const, value: joinText(message.content) },
        };
        const last: LanguageModelV4Message | undefined = prompt[prompt.length - 1];
        if (last?.role === 'tool') last.content.push(result);
        else prompt.push({ role: 'tool', content: [result] });
        break;
      }
    }
  }
  return prompt;
}

function toToolChoice(choice: ToolChoice | undefined): LanguageModelV4ToolChoice | undefined {
  if (choice === undefined) return undefined;
  if (typeof choice === 'string') return { type: choice };
  return { type: 'tool', toolName: choice.function.name };
}

function toTools(request: ChatRequest): LanguageModelV4FunctionTool[] | undefined {
  if (!request.tools || request.tools.length === 0) return undefined;
  return request.tools.map(({ function: fn }) => ({
    type: 'function',
    name: fn.name,
    description: fn.description,
    inputSchema: (fn.parameters ?? { type: 'object', properties: {} }) as LanguageModelV4FunctionTool['inputSchema'],
    ...(fn.strict != null ? { strict: fn.strict } : {}),
  }));
}

function toResponseFormat(request: ChatRequest): CallOptions['responseFormat'] {
  const format = request.response_format;
  if (!format || format.type === 'text') return undefined;
  if (format.type === 'json_object') return { type: 'json' };
  const schema = format.json_schema ?? {};
  return {
    type: 'json',
    schema: schema.schema as NonNullable<CallOptions['responseFormat'] & { type: 'json' }>['schema'],
    name: schema.name,
    description: schema.description,
  };
}

const orUndefined = <T>(value: T | null | undefined): T | undefined => (value === null ? undefined : value);

/** OpenAI request -> AI SDK language-model call options. */
export function toCallOptions(request: ChatRequest): CallOptions {
  const stop = request.stop;
  return {
    prompt: toPrompt(request.messages),
    maxOutputTokens: orUndefined(request.max_completion_tokens ?? request.max_tokens),
    temperature: orUndefined(request.temperature),
    topP: orUndefined(request.top_p),
    stopSequences: stop == null ? undefined : typeof stop === 'string' ? [stop] : stop,
    seed: orUndefined(request.seed),
    presencePenalty: orUndefined(request.presence_penalty),
    frequencyPenalty: orUndefined(request.frequency_penalty),
    tools: toTools(request),
    toolChoice: toToolChoice(request.tool_choice),
    responseFormat: toResponseFormat(request),
  };
}

/** Capabilities a model must have to take this request at all. */
export function requiredCapabilities(request: ChatRequest): Capability[] {
  const needs: Capability[] = [];
  if (request.tools && request.tools.length > 0 && request.tool_choice !== 'none') needs.push('tool-use');
  for (const message of request.messages) {
    if (message.role === 'user' && typeof message.content !== 'string' && message.content.some((part) => part.type === 'image_url')) {
      needs.push('vision');
      break;
    }
  }
  return needs;
}
