import type {
  LanguageModelV4FilePart,
  LanguageModelV4FunctionTool,
  LanguageModelV4Message,
  LanguageModelV4Prompt,
  LanguageModelV4TextPart,
  LanguageModelV4ToolCallPart,
  LanguageModelV4ToolChoice,
} from '@ai-sdk/provider';
import type { Capability, RequestExtras } from '../../../providers/types.ts';
import { imageURLToFilePart } from '../image-url.ts';
import type { ChatMessage, ChatRequest, FilePart, ImagePart, TextPart, ToolChoice } from './types.ts';
import { parseToolArguments } from '../tool-arguments.ts';
import { fail } from '../validation.ts';
import type { CallOptions } from '../../routing/index.ts';

function joinText(content: string | readonly TextPart[] | null | undefined): string {
  if (content == null) return '';
  if (typeof content === 'string') return content;
  let text = '';
  for (const part of content) text += part.text;
  return text;
}

const base64DataURL = /^data:([^;,]+);base64,/;

/** A `file` part (a PDF, inline) -> the AI SDK's file part. `field` names the part's `file` for the 400s. */
function documentToFilePart(part: FilePart, field: string): LanguageModelV4FilePart {
  if (part.file.file_id !== undefined) {
    fail(`${field}.file_id`, 'Freeway keeps no files; send the document inline as file_data');
  }
  const data = part.file.file_data;
  if (data === undefined) fail(`${field}.file_data`, 'is required');
  const match = base64DataURL.exec(data);
  if (!match) fail(`${field}.file_data`, 'must be a base64 data URL (data:application/pdf;base64,...)');
  if (match[1] !== 'application/pdf') fail(`${field}.file_data`, 'only application/pdf documents are supported');
  const filePart: LanguageModelV4FilePart = { type: 'file', mediaType: 'application/pdf', data: { type: 'data', data: data.slice(match[0].length) } };
  if (part.file.filename !== undefined) filePart.filename = part.file.filename;
  return filePart;
}

function toUserPart(part: TextPart | ImagePart | FilePart, field: string): LanguageModelV4TextPart | LanguageModelV4FilePart {
  switch (part.type) {
    case 'text':
      return { type: 'text', text: part.text };
    case 'image_url':
      return imageURLToFilePart(part.image_url.url, `${field}.image_url.url`);
    case 'file':
      return documentToFilePart(part, `${field}.file`);
  }
}

function pushToolResult(prompt: LanguageModelV4Prompt, toolCallId: string, toolName: string, value: string): void {
  const result = { type: 'tool-result' as const, toolCallId, toolName, output: { type: 'text' as const, value } };
  const last: LanguageModelV4Message | undefined = prompt[prompt.length - 1];
  if (last?.role === 'tool') last.content.push(result);
  else prompt.push({ role: 'tool', content: [result] });
}

function toPrompt(messages: readonly ChatMessage[]): LanguageModelV4Prompt {
  const prompt: LanguageModelV4Prompt = [];
  // Tool results name their tool by the id of the call; Gemini needs the name too.
  const toolNames = new Map<string, string>();
  // Legacy function calls have no ids: each gets one, which its result (named by the function) then refers to.
  const functionCallIds = new Map<string, string>();
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
          for (const [at, part] of message.content.entries()) content.push(toUserPart(part, `messages.${index}.content.${at}`));
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
          content.push({ type: 'tool-call', toolCallId: call.id, toolName: call.function.name, input: parseToolArguments(call.function.arguments) });
        }
        if (message.function_call) {
          const id = `call_legacy_${index}`;
          functionCallIds.set(message.function_call.name, id);
          content.push({ type: 'tool-call', toolCallId: id, toolName: message.function_call.name, input: parseToolArguments(message.function_call.arguments) });
        }
        prompt.push({ role: 'assistant', content });
        break;
      }
      case 'tool':
        pushToolResult(prompt, message.tool_call_id, toolNames.get(message.tool_call_id) ?? 'tool', joinText(message.content));
        break;
      case 'function':
        pushToolResult(prompt, functionCallIds.get(message.name) ?? `call_legacy_${index}`, message.name, message.content ?? '');
        break;
    }
  }
  return prompt;
}

function toToolChoice(request: ChatRequest): LanguageModelV4ToolChoice | undefined {
  const choice: ToolChoice | ChatRequest['function_call'] = isLegacy(request) ? request.function_call : request.tool_choice;
  if (choice === undefined) return undefined;
  if (typeof choice === 'string') return { type: choice };
  return { type: 'tool', toolName: 'function' in choice ? choice.function.name : choice.name };
}

function toTools(request: ChatRequest): LanguageModelV4FunctionTool[] | undefined {
  const functions = isLegacy(request) ? request.functions : request.tools?.map((tool) => tool.function);
  if (!functions || functions.length === 0) return undefined;
  return functions.map((fn) => ({
    type: 'function',
    name: fn.name,
    description: fn.description,
    inputSchema: (fn.parameters ?? { type: 'object', properties: {} }) as LanguageModelV4FunctionTool['inputSchema'],
    ...(fn.strict != null ? { strict: fn.strict } : {}),
  }));
}

/**
 * True when the caller uses legacy function calling (`functions`, `function_call`):
 * the answer then comes in that form, `message.function_call` and finish reason
 * `function_call`, as OpenAI answers it.
 */
export function isLegacy(request: ChatRequest): boolean {
  return request.functions !== undefined;
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
    toolChoice: toToolChoice(request),
    responseFormat: toResponseFormat(request),
  };
}

/** What the request asks of the provider beyond the call options. */
export function toExtras(request: ChatRequest): Omit<RequestExtras, 'user'> {
  const extras: { parallelToolCalls?: boolean; logprobs?: boolean; topLogprobs?: number } = {};
  // A legacy function call is one call per answer.
  const parallel = request.parallel_tool_calls ?? (isLegacy(request) ? false : undefined);
  if (parallel != null) extras.parallelToolCalls = parallel;
  if (request.logprobs === true) {
    extras.logprobs = true;
    if (request.top_logprobs != null) extras.topLogprobs = request.top_logprobs;
  }
  return extras;
}

/** Capabilities a model must have to take this request at all. */
export function requiredCapabilities(request: ChatRequest): Capability[] {
  const needs: Capability[] = [];
  if (isLegacy(request) ? request.function_call !== 'none' : request.tools && request.tools.length > 0 && request.tool_choice !== 'none') needs.push('tool-use');
  let images = false;
  let documents = false;
  for (const message of request.messages) {
    if (message.role !== 'user' || typeof message.content === 'string') continue;
    for (const part of message.content) {
      if (part.type === 'image_url') images = true;
      else if (part.type === 'file') documents = true;
    }
  }
  if (images) needs.push('vision');
  if (documents) needs.push('pdf');
  return needs;
}
