import { invalidRequest } from '../../core/errors.ts';
import { assertSchemaDepth } from '../json-depth.ts';
import { INT32_MAX, MAX_MODEL_ID_LENGTH, modelIdTooLong } from '../limits.ts';
import type {
  AssistantBlock,
  DocumentBlock,
  ImageBlock,
  Message,
  MessagesRequest,
  TextBlock,
  Thinking,
  Tool,
  ToolChoice,
  ToolResultBlock,
  UserBlock,
} from './types.ts';

/**
 * Checks a Messages API body by hand: the shapes are small, and walking them
 * gives a message naming the exact field (`messages.2.content.0.source.type`)
 * without a schema compiler at start-up. Unknown fields are ignored.
 */

type Fields = Record<string, unknown>;

const fail = (path: string, detail: string): Error => invalidRequest(`Validation failed: ${path}: ${detail}`);

const isObject = (value: unknown): value is Fields => typeof value === 'object' && value !== null && !Array.isArray(value);

function object(value: unknown, path: string): Fields {
  if (!isObject(value)) throw fail(path, 'must be an object');
  return value;
}

function string(fields: Fields, key: string, path: string): string {
  const value = fields[key];
  if (value === undefined) throw fail(`${path}${key}`, 'is required');
  if (typeof value !== 'string') throw fail(`${path}${key}`, 'must be a string');
  return value;
}

function optionalNumber(fields: Fields, key: string, min: number, max: number, integer = false): void {
  const value = fields[key];
  if (value === undefined || value === null) return;
  if (typeof value !== 'number' || !Number.isFinite(value) || (integer && !Number.isInteger(value))) {
    throw fail(key, integer ? 'must be an integer' : 'must be a number');
  }
  if (value < min || value > max) throw fail(key, `must be from ${min} to ${max}`);
}

function oneOf(fields: Fields, key: string, path: string, allowed: readonly string[]): string {
  const value = string(fields, key, path);
  if (!allowed.includes(value)) throw fail(`${path}${key}`, `must be one of ${allowed.join(', ')}`);
  return value;
}

const imageMediaTypes = ['image/jpeg', 'image/png', 'image/gif', 'image/webp'];

function checkHttpUrl(url: string, path: string): void {
  const parsed = URL.parse(url);
  if (parsed?.protocol !== 'http:' && parsed?.protocol !== 'https:') throw fail(path, 'must be an http(s) URL');
}

const noFiles = 'Freeway keeps no files: send the content inline (base64 or url)';

function checkImage(block: Fields, path: string): ImageBlock {
  const source = object(block.source, `${path}.source`);
  const type = oneOf(source, 'type', `${path}.source.`, ['base64', 'url', 'file']);
  if (type === 'file') throw fail(`${path}.source`, noFiles);
  if (type === 'base64') {
    oneOf(source, 'media_type', `${path}.source.`, imageMediaTypes);
    string(source, 'data', `${path}.source.`);
  } else {
    checkHttpUrl(string(source, 'url', `${path}.source.`), `${path}.source.url`);
  }
  return block as unknown as ImageBlock;
}

function checkText(block: Fields, path: string): TextBlock {
  string(block, 'text', `${path}.`);
  return block as unknown as TextBlock;
}

function checkTextBlocks(value: unknown, path: string): void {
  if (typeof value === 'string') return;
  if (!Array.isArray(value)) throw fail(path, 'must be a string or an array of text blocks');
  for (const [index, item] of value.entries()) {
    const block = object(item, `${path}.${index}`);
    oneOf(block, 'type', `${path}.${index}.`, ['text']);
    checkText(block, `${path}.${index}`);
  }
}

function checkDocument(block: Fields, path: string): DocumentBlock {
  const source = object(block.source, `${path}.source`);
  const type = oneOf(source, 'type', `${path}.source.`, ['base64', 'url', 'text', 'content', 'file']);
  switch (type) {
    case 'file':
      throw fail(`${path}.source`, noFiles);
    case 'base64':
      oneOf(source, 'media_type', `${path}.source.`, ['application/pdf']);
      string(source, 'data', `${path}.source.`);
      break;
    case 'url':
      checkHttpUrl(string(source, 'url', `${path}.source.`), `${path}.source.url`);
      break;
    case 'text':
      string(source, 'data', `${path}.source.`);
      break;
    case 'content': {
      const content = source.content;
      if (typeof content === 'string') break;
      if (!Array.isArray(content)) throw fail(`${path}.source.content`, 'must be a string or an array of text and image blocks');
      for (const [index, item] of content.entries()) {
        const inner = object(item, `${path}.source.content.${index}`);
        const innerPath = `${path}.source.content.${index}`;
        if (oneOf(inner, 'type', `${innerPath}.`, ['text', 'image']) === 'text') checkText(inner, innerPath);
        else checkImage(inner, innerPath);
      }
      break;
    }
  }
  return block as unknown as DocumentBlock;
}

function checkToolResult(block: Fields, path: string): ToolResultBlock {
  string(block, 'tool_use_id', `${path}.`);
  const content = block.content;
  if (content !== undefined && typeof content !== 'string') {
    if (!Array.isArray(content)) throw fail(`${path}.content`, 'must be a string or an array of blocks');
    for (const [index, item] of content.entries()) {
      const inner = object(item, `${path}.content.${index}`);
      const innerPath = `${path}.content.${index}`;
      const type = oneOf(inner, 'type', `${innerPath}.`, ['text', 'image', 'document']);
      if (type === 'text') checkText(inner, innerPath);
      else if (type === 'image') checkImage(inner, innerPath);
      else checkDocument(inner, innerPath);
    }
  }
  if (block.is_error !== undefined && typeof block.is_error !== 'boolean') throw fail(`${path}.is_error`, 'must be a boolean');
  return block as unknown as ToolResultBlock;
}

const userTypes = ['text', 'image', 'document', 'tool_result'];
const assistantTypes = ['text', 'tool_use', 'thinking', 'redacted_thinking'];

function checkUserBlock(block: Fields, path: string): UserBlock {
  switch (oneOf(block, 'type', `${path}.`, userTypes)) {
    case 'text':
      return checkText(block, path);
    case 'image':
      return checkImage(block, path);
    case 'document':
      return checkDocument(block, path);
    default:
      return checkToolResult(block, path);
  }
}

function checkAssistantBlock(block: Fields, path: string): AssistantBlock {
  switch (oneOf(block, 'type', `${path}.`, assistantTypes)) {
    case 'text':
      return checkText(block, path);
    case 'tool_use':
      string(block, 'id', `${path}.`);
      string(block, 'name', `${path}.`);
      if (!isObject(block.input)) throw fail(`${path}.input`, 'must be an object');
      // Providers' SDKs serialize it again, recursively.
      assertSchemaDepth(block.input, `${path}.input`);
      break;
    case 'thinking':
      string(block, 'thinking', `${path}.`);
      break;
    case 'redacted_thinking':
      string(block, 'data', `${path}.`);
      break;
  }
  return block as unknown as AssistantBlock;
}

function checkMessages(value: unknown): Message[] {
  if (value === undefined) throw fail('messages', 'is required');
  if (!Array.isArray(value)) throw fail('messages', 'must be an array');
  if (value.length === 0) throw fail('messages', 'must have at least 1 item');
  for (const [index, item] of value.entries()) {
    const path = `messages.${index}`;
    const message = object(item, path);
    const role = oneOf(message, 'role', `${path}.`, ['user', 'assistant', 'system']);
    const content = message.content;
    if (content === undefined) throw fail(`${path}.content`, 'is required');
    if (typeof content === 'string') continue;
    if (!Array.isArray(content)) throw fail(`${path}.content`, 'must be a string or an array of content blocks');
    if (role === 'system') {
      checkTextBlocks(content, `${path}.content`);
      continue;
    }
    for (const [at, entry] of content.entries()) {
      const block = object(entry, `${path}.content.${at}`);
      if (role === 'user') checkUserBlock(block, `${path}.content.${at}`);
      else checkAssistantBlock(block, `${path}.content.${at}`);
    }
  }
  return value as Message[];
}

const toolNamePattern = /^[a-zA-Z0-9_-]{1,128}$/;

function checkTools(value: unknown): Tool[] | undefined {
  if (value === undefined || value === null) return undefined;
  if (!Array.isArray(value)) throw fail('tools', 'must be an array');
  for (const [index, item] of value.entries()) {
    const path = `tools.${index}`;
    const tool = object(item, path);
    const type = tool.type;
    if (type !== undefined && type !== null && type !== 'custom') {
      const name = typeof tool.name === 'string' ? tool.name : String(type);
      throw fail(path, `${name} (${String(type)}) is a server tool, which Freeway does not run; only custom tools (name, description, input_schema) are supported`);
    }
    const name = string(tool, 'name', `${path}.`);
    if (!toolNamePattern.test(name)) throw fail(`${path}.name`, 'must be 1 to 128 letters, digits, _ or -');
    if (tool.description !== undefined && typeof tool.description !== 'string') throw fail(`${path}.description`, 'must be a string');
    if (tool.input_schema === undefined) throw fail(`${path}.input_schema`, 'is required');
    object(tool.input_schema, `${path}.input_schema`);
    assertSchemaDepth(tool.input_schema, `${path}.input_schema`);
  }
  return value as Tool[];
}

function checkToolChoice(value: unknown, tools: Tool[] | undefined): ToolChoice | undefined {
  if (value === undefined || value === null) return undefined;
  const choice = object(value, 'tool_choice');
  const type = oneOf(choice, 'type', 'tool_choice.', ['auto', 'any', 'tool', 'none']);
  if (type === 'tool') {
    const name = string(choice, 'name', 'tool_choice.');
    if (!tools?.some((tool) => tool.name === name)) throw fail('tool_choice.name', `names no tool of the request: ${name}`);
  }
  if (choice.disable_parallel_tool_use !== undefined && typeof choice.disable_parallel_tool_use !== 'boolean') {
    throw fail('tool_choice.disable_parallel_tool_use', 'must be a boolean');
  }
  return choice as unknown as ToolChoice;
}

function checkThinking(value: unknown): Thinking | undefined {
  if (value === undefined || value === null) return undefined;
  const thinking = object(value, 'thinking');
  const type = oneOf(thinking, 'type', 'thinking.', ['enabled', 'disabled', 'adaptive', 'between_tools']);
  if (thinking.display !== undefined && thinking.display !== null) oneOf(thinking, 'display', 'thinking.', ['summarized', 'omitted']);
  if (type === 'enabled') {
    const budget = thinking.budget_tokens;
    if (budget === undefined) throw fail('thinking.budget_tokens', 'is required');
    if (typeof budget !== 'number' || !Number.isInteger(budget) || budget < 1) throw fail('thinking.budget_tokens', 'must be a positive integer');
  }
  return thinking as unknown as Thinking;
}

function checkOutputConfig(value: unknown): void {
  if (value === undefined || value === null) return;
  const config = object(value, 'output_config');
  if (config.effort !== undefined && config.effort !== null) oneOf(config, 'effort', 'output_config.', ['low', 'medium', 'high', 'xhigh', 'max']);
  if (config.format !== undefined && config.format !== null) {
    const format = object(config.format, 'output_config.format');
    oneOf(format, 'type', 'output_config.format.', ['json_schema']);
    if (format.schema === undefined) throw fail('output_config.format.schema', 'is required');
    object(format.schema, 'output_config.format.schema');
    assertSchemaDepth(format.schema, 'output_config.format.schema');
  }
}

/**
 * A Messages API body -> the request Freeway reads, or a 400 naming the first
 * bad field. `count_tokens` bodies have no `max_tokens`.
 */
export function parseMessagesRequest(body: unknown, counting = false): MessagesRequest {
  const fields = object(body, 'body');
  const model = string(fields, 'model', '');
  if (model === '') throw fail('model', 'must not be empty');
  if (model.length > MAX_MODEL_ID_LENGTH) throw fail('model', modelIdTooLong);
  if (!counting) {
    if (fields.max_tokens === undefined) throw fail('max_tokens', 'is required');
    optionalNumber(fields, 'max_tokens', 1, INT32_MAX, true);
  }
  checkMessages(fields.messages);
  if (fields.system !== undefined && fields.system !== null) checkTextBlocks(fields.system, 'system');
  optionalNumber(fields, 'temperature', 0, 1);
  optionalNumber(fields, 'top_p', 0, 1);
  optionalNumber(fields, 'top_k', 0, INT32_MAX, true);
  const stop = fields.stop_sequences;
  if (stop !== undefined && stop !== null && (!Array.isArray(stop) || stop.some((item) => typeof item !== 'string'))) {
    throw fail('stop_sequences', 'must be an array of strings');
  }
  const tools = checkTools(fields.tools);
  checkToolChoice(fields.tool_choice, tools);
  checkThinking(fields.thinking);
  checkOutputConfig(fields.output_config);
  const metadata = fields.metadata;
  if (metadata !== undefined && metadata !== null) {
    const user = object(metadata, 'metadata').user_id;
    if (user !== undefined && user !== null && typeof user !== 'string') throw fail('metadata.user_id', 'must be a string');
  }
  if (fields.stream !== undefined && fields.stream !== null && typeof fields.stream !== 'boolean') throw fail('stream', 'must be a boolean');
  return fields as unknown as MessagesRequest;
}
