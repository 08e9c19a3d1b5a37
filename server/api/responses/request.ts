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
import type { InputText, ResponsesRequest, TextFormat, ToolChoice } from './types.ts';
import { parseToolArguments } from '../tool-arguments.ts';
import type { CallOptions } from '../../routing/index.ts';

function joinText(parts: readonly InputText[]): string {
  let text = '';
  for (const part of parts) text += part.text;
  return text;
}

/** The last message of the prompt when it has `role`, so consecutive items of one turn share a message. */
function lastWithRole<R extends LanguageModelV4Message['role']>(prompt: LanguageModelV4Prompt, role: R): Extract<LanguageModelV4Message, { role: R }> | undefined {
  const last = prompt[prompt.length - 1];
  return last?.role === role ? (last as Extract<LanguageModelV4Message, { role: R }>) : undefined;
}

/** `instructions` and the input items -> the AI SDK's prompt. */
function toPrompt(request: ResponsesRequest): LanguageModelV4Prompt {
  const prompt: LanguageModelV4Prompt = [];
  if (request.instructions !== null && request.instructions !== '') prompt.push({ role: 'system', content: request.instructions });
  // Tool results name their tool by the id of the call; Gemini needs the name too.
  const toolNames = new Map<string, string>();
  for (const [index, item] of request.input.entries()) {
    switch (item.type) {
      case 'message':
        if (item.role === 'system' || item.role === 'developer') prompt.push({ role: 'system', content: joinText(item.content) });
        else if (item.role === 'assistant') {
          const text = joinText(item.content);
          if (text === '') break;
          const assistant = lastWithRole(prompt, 'assistant');
          if (assistant) assistant.content.push({ type: 'text', text });
          else prompt.push({ role: 'assistant', content: [{ type: 'text', text }] });
        } else {
          const content: Array<LanguageModelV4TextPart | LanguageModelV4FilePart> = [];
          for (const [at, part] of item.content.entries()) {
            if (part.type === 'input_image') content.push(imageURLToFilePart(part.image_url, `input.${index}.content.${at}.image_url`));
            else if (part.type === 'input_file') {
              const file: LanguageModelV4FilePart = { type: 'file', mediaType: 'application/pdf', data: { type: 'data', data: part.data } };
              if (part.filename !== undefined) file.filename = part.filename;
              content.push(file);
            } else content.push({ type: 'text', text: part.text });
          }
          prompt.push({ role: 'user', content });
        }
        break;
      case 'function_call': {
        toolNames.set(item.call_id, item.name);
        const call: LanguageModelV4ToolCallPart = { type: 'tool-call', toolCallId: item.call_id, toolName: item.name, input: parseToolArguments(item.arguments) };
        const assistant = lastWithRole(prompt, 'assistant');
        if (assistant) assistant.content.push(call);
        else prompt.push({ role: 'assistant', content: [call] });
        break;
      }
      case 'function_call_output': {
        const result = {
          type: 'tool-result' as const,
          toolCallId: item.call_id,
          toolName: toolNames.get(item.call_id) ?? 'tool',
          output: { type: 'text' as const, value: item.output },
        };
        const tool = lastWithRole(prompt, 'tool');
        if (tool) tool.content.push(result);
        else prompt.push({ role: 'tool', content: [result] });
        break;
      }
    }
  }
  return prompt;
}

function toToolChoice(choice: ToolChoice): LanguageModelV4ToolChoice {
  if (typeof choice === 'string') return { type: choice };
  return { type: 'tool', toolName: choice.name };
}

function toTools(request: ResponsesRequest): LanguageModelV4FunctionTool[] | undefined {
  if (request.functions.length === 0) return undefined;
  return request.functions.map((tool) => ({
    type: 'function',
    name: tool.name,
    description: tool.description ?? undefined,
    inputSchema: (tool.parameters ?? { type: 'object', properties: {} }) as LanguageModelV4FunctionTool['inputSchema'],
    ...(tool.strict !== null ? { strict: tool.strict } : {}),
  }));
}

function toResponseFormat(format: TextFormat): CallOptions['responseFormat'] {
  switch (format.type) {
    case 'text':
      return undefined;
    case 'json_object':
      return { type: 'json' };
    case 'json_schema':
      return {
        type: 'json',
        schema: format.schema as NonNullable<CallOptions['responseFormat'] & { type: 'json' }>['schema'],
        name: format.name,
        description: format.description,
      };
  }
}

/** Responses request -> AI SDK language-model call options. */
export function toCallOptions(request: ResponsesRequest): CallOptions {
  const tools = toTools(request);
  return {
    prompt: toPrompt(request),
    maxOutputTokens: request.max_output_tokens ?? undefined,
    reasoning: request.reasoning_effort,
    temperature: request.temperature ?? undefined,
    topP: request.top_p ?? undefined,
    tools,
    toolChoice: tools ? toToolChoice(request.tool_choice) : undefined,
    responseFormat: toResponseFormat(request.text.format),
  };
}

/** Capabilities a model must have to take this request at all. */
export function requiredCapabilities(request: ResponsesRequest): Capability[] {
  const needs: Capability[] = [];
  if (request.functions.length > 0 && request.tool_choice !== 'none') needs.push('tool-use');
  if (request.hasImages) needs.push('vision');
  if (request.hasDocuments) needs.push('pdf');
  return needs;
}

/** `parallel_tool_calls` as the caller set it, for requests with tools (providers refuse it without). */
export function toExtras(request: ResponsesRequest): Omit<RequestExtras, 'user'> {
  return request.parallel_tool_calls === undefined || request.functions.length === 0 ? {} : { parallelToolCalls: request.parallel_tool_calls };
}
