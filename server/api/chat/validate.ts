import { assertSchemaDepth } from '../json-depth.ts';
import { INT32_MAX, INT32_MIN, MAX_MODEL_ID_LENGTH } from '../limits.ts';
import { codePoints, fail, isObject, maxLength, optionalNumber, phrase, type Fields } from '../validation.ts';
import type { ChatRequest } from './types.ts';

/**
 * Checks a chat-completions body with the shared field checks of
 * ../validation.ts, in the order JSON Schema validators check (required fields
 * before their values, fields in the order below), reporting the first mistake.
 * Unknown fields are ignored.
 */

/** JSON Schema's type names, for `must be string or null`. */
type TypeName = 'string' | 'number' | 'integer' | 'boolean' | 'object' | 'array' | 'null';

function wrongType(field: string, ...allowed: TypeName[]): never {
  fail(field, phrase.type(...allowed));
}

function required(value: Fields, field: string, key: string): void {
  if (value[key] === undefined) fail(field === '' ? key : `${field}.${key}`, phrase.required);
}

function object(value: unknown, field: string): Fields {
  if (!isObject(value)) wrongType(field, 'object');
  return value;
}

/**
 * The leaf checks take the path of the field's parent and its key apart, and
 * join them only for a message: a valid body (the usual case) builds no paths.
 */
const join = (parent: string, key: string): string => (parent === '' ? key : `${parent}.${key}`);

function string(value: unknown, parent: string, key: string, minLength = 0): void {
  if (typeof value !== 'string') wrongType(join(parent, key), 'string');
  if (minLength > 0 && value.length < minLength * 2 && codePoints(value) < minLength) fail(join(parent, key), phrase.minLength(minLength));
}

function optionalString(value: unknown, parent: string, key: string): void {
  if (value !== undefined && typeof value !== 'string') wrongType(join(parent, key), 'string');
}

/** `{"type": ["boolean", "null"]}`, or `["boolean"]` where null is not allowed. */
function optionalBoolean(value: unknown, field: string, nullable = true): void {
  if (value === undefined || typeof value === 'boolean' || (nullable && value === null)) return;
  if (nullable) wrongType(field, 'boolean', 'null');
  wrongType(field, 'boolean');
}

function constant(value: unknown, parent: string, key: string, expected: string): void {
  if (value !== undefined && value !== expected) fail(join(parent, key), phrase.constant(expected));
}

function textParts(value: unknown[], field: string): void {
  for (let index = 0; index < value.length; index++) {
    const at = `${field}.${index}`;
    const part = object(value[index], at);
    required(part, at, 'type');
    required(part, at, 'text');
    constant(part.type, at, 'type', 'text');
    string(part.text, at, 'text');
  }
}

/** `content` as a string or text parts (or null, where `nullable`). */
function textContent(value: unknown, parent: string, nullable = false): void {
  if (value === undefined || typeof value === 'string' || (nullable && value === null)) return;
  const field = `${parent}.content`;
  if (!Array.isArray(value)) fail(field, nullable ? phrase.type('string', 'null', 'array') : phrase.type('string', 'array'));
  textParts(value, field);
}

/** A discriminated union's tag: present (checked by `required`), a string, one of `tags`. */
function tag(value: unknown, parent: string, key: string, tags: readonly string[]): string {
  if (typeof value !== 'string') wrongType(join(parent, key), 'string');
  if (!tags.includes(value)) fail(join(parent, key), phrase.oneOf(tags));
  return value;
}

const partTypes = ['text', 'image_url', 'file'];

function userPart(item: unknown, field: string): void {
  const part = object(item, field);
  required(part, field, 'type');
  switch (tag(part.type, field, 'type', partTypes)) {
    case 'text':
      required(part, field, 'text');
      string(part.text, field, 'text');
      break;
    case 'image_url': {
      required(part, field, 'image_url');
      const image = object(part.image_url, `${field}.image_url`);
      required(image, `${field}.image_url`, 'url');
      string(image.url, field, 'image_url.url', 1);
      optionalString(image.detail, field, 'image_url.detail');
      break;
    }
    case 'file': {
      required(part, field, 'file');
      const file = object(part.file, `${field}.file`);
      if (file.file_data !== undefined) string(file.file_data, field, 'file.file_data', 1);
      optionalString(file.file_id, field, 'file.file_id');
      optionalString(file.filename, field, 'file.filename');
    }
  }
}

function userContent(value: unknown, parent: string): void {
  if (typeof value === 'string') return;
  const field = `${parent}.content`;
  if (!Array.isArray(value)) fail(field, phrase.type('string', 'array'));
  if (value.length === 0) fail(field, phrase.minItems(1));
  for (let index = 0; index < value.length; index++) userPart(value[index], `${field}.${index}`);
}

/** `{"name", "arguments"}`, as a tool call's `function` and the legacy `function_call` carry. */
function call(value: Fields, field: string): void {
  required(value, field, 'name');
  required(value, field, 'arguments');
  string(value.name, field, 'name', 1);
  string(value.arguments, field, 'arguments');
}

function toolCalls(value: unknown, field: string): void {
  if (!Array.isArray(value)) wrongType(field, 'array');
  for (let index = 0; index < value.length; index++) {
    const at = `${field}.${index}`;
    const toolCall = object(value[index], at);
    required(toolCall, at, 'id');
    required(toolCall, at, 'type');
    required(toolCall, at, 'function');
    string(toolCall.id, at, 'id', 1);
    constant(toolCall.type, at, 'type', 'function');
    call(object(toolCall.function, `${at}.function`), `${at}.function`);
  }
}

function assistantMessage(message: Fields, field: string): void {
  textContent(message.content, field, true);
  if (message.tool_calls !== undefined) toolCalls(message.tool_calls, `${field}.tool_calls`);
  const legacy = message.function_call;
  if (legacy === undefined || legacy === null) return;
  if (!isObject(legacy)) wrongType(`${field}.function_call`, 'object', 'null');
  call(legacy, `${field}.function_call`);
}

const roles = ['system', 'developer', 'user', 'assistant', 'tool', 'function'];

function message(item: unknown, field: string): void {
  const value = object(item, field);
  required(value, field, 'role');
  switch (tag(value.role, field, 'role', roles)) {
    case 'system':
    case 'developer':
      required(value, field, 'content');
      textContent(value.content, field);
      break;
    case 'user':
      required(value, field, 'content');
      userContent(value.content, field);
      break;
    case 'assistant':
      assistantMessage(value, field);
      break;
    case 'tool':
      required(value, field, 'content');
      required(value, field, 'tool_call_id');
      textContent(value.content, field);
      string(value.tool_call_id, field, 'tool_call_id', 1);
      break;
    case 'function':
      required(value, field, 'name');
      required(value, field, 'content');
      string(value.name, field, 'name', 1);
      if (value.content !== null && typeof value.content !== 'string') wrongType(`${field}.content`, 'string', 'null');
  }
}

const functionName = /^[A-Za-z0-9_-]{1,64}$/u;

function functionDefinition(item: unknown, field: string): void {
  const definition = object(item, field);
  required(definition, field, 'name');
  string(definition.name, field, 'name');
  if (!functionName.test(definition.name as string)) fail(`${field}.name`, `must match pattern "${functionName.source}"`);
  optionalString(definition.description, field, 'description');
  if (definition.parameters !== undefined) object(definition.parameters, `${field}.parameters`);
  optionalBoolean(definition.strict, `${field}.strict`);
}

function toolChoice(value: unknown): void {
  if (value === undefined || value === 'auto' || value === 'none' || value === 'required') return;
  if (!isObject(value)) fail('tool_choice', phrase.type('auto or none or required', 'object'));
  required(value, 'tool_choice', 'type');
  required(value, 'tool_choice', 'function');
  constant(value.type, 'tool_choice', 'type', 'function');
  const fn = object(value.function, 'tool_choice.function');
  required(fn, 'tool_choice.function', 'name');
  string(fn.name, 'tool_choice', 'function.name');
}

function functionCall(value: unknown): void {
  if (value === undefined || value === 'none' || value === 'auto') return;
  if (!isObject(value)) fail('function_call', phrase.type('none or auto', 'object'));
  required(value, 'function_call', 'name');
  string(value.name, 'function_call', 'name');
}

function stop(value: unknown): void {
  if (value === undefined || value === null || typeof value === 'string') return;
  if (!Array.isArray(value)) fail('stop', phrase.type('string', 'null', 'array'));
  if (value.length > 4) fail('stop', phrase.maxItems(4));
  for (let index = 0; index < value.length; index++) string(value[index], 'stop', String(index));
}

function tools(value: unknown): void {
  if (value === undefined) return;
  if (!Array.isArray(value)) wrongType('tools', 'array');
  for (let index = 0; index < value.length; index++) {
    const at = `tools.${index}`;
    const tool = object(value[index], at);
    required(tool, at, 'type');
    required(tool, at, 'function');
    constant(tool.type, at, 'type', 'function');
    functionDefinition(tool.function, `${at}.function`);
  }
}

function functions(value: unknown): void {
  if (value === undefined) return;
  if (!Array.isArray(value)) wrongType('functions', 'array');
  if (value.length === 0) fail('functions', phrase.minItems(1));
  for (let index = 0; index < value.length; index++) functionDefinition(value[index], `functions.${index}`);
}

const formatTypes = ['text', 'json_object', 'json_schema'];

function responseFormat(value: unknown): void {
  if (value === undefined) return;
  const format = object(value, 'response_format');
  required(format, 'response_format', 'type');
  if (!formatTypes.includes(format.type as string)) fail('response_format.type', phrase.oneOf(formatTypes));
  if (format.json_schema !== undefined) object(format.json_schema, 'response_format.json_schema');
}

function streamOptions(value: unknown): void {
  if (value === undefined || value === null) return;
  if (!isObject(value)) wrongType('stream_options', 'object', 'null');
  optionalBoolean(value.include_usage, 'stream_options.include_usage', false);
}

/** Everything after `model` and `messages`, in the schema's order. */
function options(body: Fields): void {
  optionalBoolean(body.stream, 'stream');
  streamOptions(body.stream_options);
  optionalNumber(body.temperature, 'temperature', { min: 0, max: 2 });
  optionalNumber(body.top_p, 'top_p', { min: 0, max: 1 });
  optionalNumber(body.max_tokens, 'max_tokens', { min: 1, max: INT32_MAX, integer: true });
  optionalNumber(body.max_completion_tokens, 'max_completion_tokens', { min: 1, max: INT32_MAX, integer: true });
  stop(body.stop);
  optionalNumber(body.seed, 'seed', { min: INT32_MIN, max: INT32_MAX, integer: true });
  optionalNumber(body.presence_penalty, 'presence_penalty', { min: -2, max: 2 });
  optionalNumber(body.frequency_penalty, 'frequency_penalty', { min: -2, max: 2 });
  tools(body.tools);
  toolChoice(body.tool_choice);
  optionalBoolean(body.parallel_tool_calls, 'parallel_tool_calls');
  functions(body.functions);
  functionCall(body.function_call);
  optionalBoolean(body.logprobs, 'logprobs');
  optionalNumber(body.top_logprobs, 'top_logprobs', { min: 0, max: 20, integer: true });
  responseFormat(body.response_format);
  optionalString(body.user, '', 'user');
  optionalNumber(body.n, 'n', { min: 1, max: INT32_MAX, integer: true });
}

/** Checks a parsed body; throws a 400 naming the first bad field. */
export function parseChatRequest(input: unknown): ChatRequest {
  const body = object(input, 'body');
  required(body, '', 'model');
  required(body, '', 'messages');
  string(body.model, '', 'model', 1);
  maxLength(body.model as string, 'model', MAX_MODEL_ID_LENGTH);
  const messages = body.messages;
  if (!Array.isArray(messages)) wrongType('messages', 'array');
  if (messages.length === 0) fail('messages', phrase.minItems(1));
  for (let index = 0; index < messages.length; index++) message(messages[index], `messages.${index}`);
  options(body);
  const request = body as unknown as ChatRequest;
  if (request.n != null && request.n > 1) fail('n', 'only n = 1 is supported');
  request.tools?.forEach((tool, index) => assertSchemaDepth(tool.function.parameters, `tools.${index}.function.parameters`));
  if (request.response_format?.type === 'json_schema') assertSchemaDepth(request.response_format.json_schema, 'response_format.json_schema');
  request.functions?.forEach((fn, index) => assertSchemaDepth(fn.parameters, `functions.${index}.parameters`));
  if (request.functions !== undefined && request.tools !== undefined) fail('functions', 'send tools or the legacy functions, not both');
  return request;
}
