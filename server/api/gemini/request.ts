import type {
  JSONValue,
  LanguageModelV4FilePart,
  LanguageModelV4FunctionTool,
  LanguageModelV4Message,
  LanguageModelV4Prompt,
  LanguageModelV4ReasoningPart,
  LanguageModelV4TextPart,
  LanguageModelV4ToolCallPart,
  LanguageModelV4ToolChoice,
  LanguageModelV4ToolResultOutput,
  LanguageModelV4ToolResultPart,
  SharedV4ProviderOptions,
} from '@ai-sdk/provider';
import type { Capability } from '../../../providers/types.ts';
import type { CallOptions } from '../../routing/index.ts';
import { imageURLToFilePart } from '../image-url.ts';
import { fail } from '../validation.ts';
import { toJsonSchema } from './google-schema.ts';
import type { Content, FunctionResponse, GeminiRequest, Part, ThinkingConfig } from './types.ts';
import { isImageType, isTextType } from './validate.ts';

/**
 * Where a caller's thought signature rides in the AI SDK prompt: a part's
 * `providerOptions.googleVertex.thoughtSignature`. @ai-sdk/google reads a part's
 * signature under `google`, and under `googleVertex` when there is none under `google`
 * (convertToGoogleMessages' cross-namespace fallback, @ai-sdk/google 4.0); the
 * OpenAI-compatible models read `google` (and send it on as `extra_content`), never
 * `googleVertex`. So a signature kept here reaches Google's own models unchanged and no
 * other provider (test/api/gemini-mapping.test.ts pins both).
 */
export const SIGNATURE_NAMESPACE = 'googleVertex';

function signed(signature: string | undefined): { providerOptions?: SharedV4ProviderOptions } {
  return signature === undefined ? {} : { providerOptions: { [SIGNATURE_NAMESPACE]: { thoughtSignature: signature } } };
}

/** A call of an earlier model turn. */
interface Call {
  readonly id: string;
  readonly name: string;
  answered: boolean;
}

/** Calls with one id, or one name, in order; those before `head` are answered. */
interface CallQueue {
  readonly calls: Call[];
  head: number;
}

/**
 * Calls of earlier model turns not answered yet, in order, by id and by name: a
 * functionResponse takes its call by id, else the first of its name, without a scan of
 * every call (a request may hold many calls and many responses).
 */
class Pending {
  private readonly byId = new Map<string, CallQueue>();
  private readonly byName = new Map<string, CallQueue>();

  add(id: string, name: string): void {
    const call: Call = { id, name, answered: false };
    for (const [map, key] of [[this.byId, id], [this.byName, name]] as const) {
      const queue = map.get(key);
      if (queue) queue.calls.push(call);
      else map.set(key, { calls: [call], head: 0 });
    }
  }

  /** The call a functionResponse answers: by id, else the oldest unanswered call of its name; a 400 for none. */
  take(response: FunctionResponse, path: string): Call {
    const call = (response.id === undefined ? undefined : firstUnanswered(this.byId.get(response.id))) ?? firstUnanswered(this.byName.get(response.name));
    if (call === undefined) fail(path, `answers no functionCall of an earlier model turn (none with its id, and none named ${response.name} left unanswered)`);
    call.answered = true;
    return call;
  }
}

function firstUnanswered(queue: CallQueue | undefined): Call | undefined {
  if (queue === undefined) return undefined;
  while (queue.head < queue.calls.length && (queue.calls[queue.head] as Call).answered) queue.head += 1;
  return queue.calls[queue.head];
}

/** A function's result as the AI SDK takes it: Gemini CLI's `{output}` and `{error}` as text, anything else as JSON. */
function toOutput(response: Record<string, unknown>): LanguageModelV4ToolResultOutput {
  const fields = Object.keys(response);
  if (fields.length === 1 && typeof response.output === 'string') return { type: 'text', value: response.output };
  if (fields.length === 1 && typeof response.error === 'string') return { type: 'error-text', value: response.error };
  return { type: 'json', value: response as JSONValue };
}

/** The last message of the prompt when it has `role`, so consecutive turns of one role share a message. */
function lastWithRole<R extends LanguageModelV4Message['role']>(prompt: LanguageModelV4Prompt, role: R): Extract<LanguageModelV4Message, { role: R }> | undefined {
  const last = prompt[prompt.length - 1];
  return last?.role === role ? (last as Extract<LanguageModelV4Message, { role: R }>) : undefined;
}

type AssistantPart = LanguageModelV4TextPart | LanguageModelV4ReasoningPart | LanguageModelV4ToolCallPart;
type UserPart = LanguageModelV4TextPart | LanguageModelV4FilePart;

/**
 * A model turn. A thought's text is the private reasoning of whichever model wrote it
 * and is not sent on (Gemini CLI drops thoughts from its history too); its signature is,
 * as an empty thought, which only Google's own models read.
 */
function modelTurn(prompt: LanguageModelV4Prompt, content: Content, index: number, pending: Pending): void {
  const parts: AssistantPart[] = [];
  for (const [at, part] of content.parts.entries()) {
    const signature = part.thoughtSignature;
    if (part.functionCall) {
      const { name, args } = part.functionCall;
      // Gemini may send calls without ids (before Gemini 3, and through some proxies): one is made, unique in the request.
      const id = part.functionCall.id ?? `call_${index}_${at}`;
      pending.add(id, name);
      parts.push({ type: 'tool-call', toolCallId: id, toolName: name, input: args ?? {}, ...signed(signature) });
    } else if (part.thought === true) {
      if (signature !== undefined) parts.push({ type: 'reasoning', text: '', ...signed(signature) });
    } else if (part.text !== undefined && (part.text !== '' || signature !== undefined)) {
      parts.push({ type: 'text', text: part.text, ...signed(signature) });
    }
  }
  if (parts.length === 0) return;
  const assistant = lastWithRole(prompt, 'assistant');
  if (assistant) assistant.content.push(...parts);
  else prompt.push({ role: 'assistant', content: parts });
}

function userPart(part: Part, path: string): UserPart | undefined {
  if (part.text !== undefined) return { type: 'text', text: part.text };
  if (part.inlineData) {
    const { mimeType, data } = part.inlineData;
    if (isTextType(mimeType)) return { type: 'text', text: Buffer.from(data, 'base64').toString('utf8') };
    return { type: 'file', mediaType: mimeType, data: { type: 'data', data } };
  }
  if (part.fileData) {
    const { fileUri, mimeType } = part.fileData;
    // Passed on by URL, for the provider to fetch: Freeway never fetches it.
    if (mimeType === undefined || isImageType(mimeType)) return { ...imageURLToFilePart(fileUri, `${path}.fileData.fileUri`), ...(mimeType ? { mediaType: mimeType } : {}) };
    return { type: 'file', mediaType: mimeType, data: { type: 'url', url: new URL(fileUri) } };
  }
  return undefined;
}

/** A user turn: its function responses first, as a tool message (they answer the turn before), then the rest. */
function userTurn(prompt: LanguageModelV4Prompt, content: Content, index: number, pending: Pending): void {
  const results: LanguageModelV4ToolResultPart[] = [];
  const parts: UserPart[] = [];
  for (const [at, part] of content.parts.entries()) {
    const path = `contents.${index}.parts.${at}`;
    if (part.functionResponse) {
      const call = pending.take(part.functionResponse, `${path}.functionResponse`);
      results.push({ type: 'tool-result', toolCallId: call.id, toolName: call.name, output: toOutput(part.functionResponse.response) });
      continue;
    }
    const user = userPart(part, path);
    if (user) parts.push(user);
  }
  if (results.length > 0) {
    const tool = lastWithRole(prompt, 'tool');
    if (tool) tool.content.push(...results);
    else prompt.push({ role: 'tool', content: results });
  }
  if (parts.length === 0) return;
  const user = lastWithRole(prompt, 'user');
  if (user) user.content.push(...parts);
  else prompt.push({ role: 'user', content: parts });
}

function toPrompt(request: GeminiRequest): LanguageModelV4Prompt {
  const prompt: LanguageModelV4Prompt = [];
  const system = (request.systemInstruction?.parts ?? []).map((part) => part.text ?? '').filter((text) => text !== '').join('\n\n');
  if (system !== '') prompt.push({ role: 'system', content: system });
  const pending = new Pending();
  for (const [index, content] of request.contents.entries()) {
    if (content.role === 'model') modelTurn(prompt, content, index, pending);
    else userTurn(prompt, content, index, pending);
  }
  return prompt;
}

/** The functions the caller may get calls of: with mode ANY and `allowedFunctionNames`, only those. */
function toTools(request: GeminiRequest): LanguageModelV4FunctionTool[] | undefined {
  const calling = request.toolConfig?.functionCallingConfig;
  const allowed = calling?.mode === 'ANY' && calling.allowedFunctionNames && calling.allowedFunctionNames.length > 0 ? new Set(calling.allowedFunctionNames) : undefined;
  const functions = allowed ? request.functions.filter((fn) => allowed.has(fn.name)) : request.functions;
  if (functions.length === 0) return undefined;
  return functions.map((fn) => ({
    type: 'function',
    name: fn.name,
    description: fn.description,
    inputSchema: toJsonSchema(fn.parametersJsonSchema ?? fn.parameters ?? { type: 'object', properties: {} }) as LanguageModelV4FunctionTool['inputSchema'],
  }));
}

function toToolChoice(request: GeminiRequest, tools: readonly LanguageModelV4FunctionTool[] | undefined): LanguageModelV4ToolChoice | undefined {
  if (!tools) return undefined;
  switch (request.toolConfig?.functionCallingConfig?.mode) {
    case 'NONE':
      return { type: 'none' };
    case 'ANY':
      return tools.length === 1 ? { type: 'tool', toolName: (tools[0] as LanguageModelV4FunctionTool).name } : { type: 'required' };
    default:
      return undefined;
  }
}

/**
 * Gemini's thinking settings -> the AI SDK's reasoning effort: `thinkingLevel` (MINIMAL and
 * LOW `low`, MEDIUM `medium`, HIGH and XHIGH `high`, the levels every provider that takes an
 * effort knows), else `thinkingBudget` as on /v1/messages (under 4,096 tokens `low`, under
 * 16,384 `medium`, more `high`); a budget of 0 or -1 leaves the model's default.
 */
function toReasoning(thinking: ThinkingConfig | undefined): CallOptions['reasoning'] {
  switch (thinking?.thinkingLevel) {
    case 'MINIMAL':
    case 'LOW':
      return 'low';
    case 'MEDIUM':
      return 'medium';
    case 'HIGH':
    case 'XHIGH':
      return 'high';
  }
  const budget = thinking?.thinkingBudget;
  if (budget === undefined || budget <= 0) return undefined;
  return budget < 4096 ? 'low' : budget < 16384 ? 'medium' : 'high';
}

function toResponseFormat(request: GeminiRequest): CallOptions['responseFormat'] {
  const config = request.generationConfig;
  if (config?.responseMimeType !== 'application/json') return undefined;
  const schema = config.responseJsonSchema ?? config.responseSchema;
  return schema ? { type: 'json', schema: toJsonSchema(schema) as NonNullable<CallOptions['responseFormat'] & { type: 'json' }>['schema'] } : { type: 'json' };
}

/** generateContent's request -> AI SDK language-model call options. */
export function toCallOptions(request: GeminiRequest): CallOptions {
  const config = request.generationConfig ?? {};
  const tools = toTools(request);
  return {
    prompt: toPrompt(request),
    maxOutputTokens: config.maxOutputTokens,
    temperature: config.temperature,
    topP: config.topP,
    topK: config.topK,
    stopSequences: config.stopSequences && config.stopSequences.length > 0 ? config.stopSequences : undefined,
    seed: config.seed,
    presencePenalty: config.presencePenalty,
    frequencyPenalty: config.frequencyPenalty,
    tools,
    toolChoice: toToolChoice(request, tools),
    reasoning: toReasoning(config.thinkingConfig),
    responseFormat: toResponseFormat(request),
  };
}

/** Capabilities a model must have to take this request at all. */
export function requiredCapabilities(request: GeminiRequest): Capability[] {
  const needs: Capability[] = [];
  if (request.functions.length > 0 && request.toolConfig?.functionCallingConfig?.mode !== 'NONE') needs.push('tool-use');
  let images = false;
  let documents = false;
  for (const content of request.contents) {
    for (const part of content.parts) {
      const mimeType = part.inlineData?.mimeType ?? (part.fileData ? (part.fileData.mimeType ?? 'image/*') : undefined);
      if (mimeType === undefined) continue;
      if (mimeType === 'application/pdf') documents = true;
      else if (mimeType.startsWith('image/')) images = true;
    }
  }
  if (images) needs.push('vision');
  if (documents) needs.push('pdf');
  return needs;
}
