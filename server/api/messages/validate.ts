import { assertSchemaDepth } from '../json-depth.ts';
import { INT32_MAX, MAX_MODEL_ID_LENGTH } from '../limits.ts';
import { array, fail, httpUrl, isObject, maxLength, nonEmptyString, object, oneOf, optionalNumber, phrase, string, type Fields } from '../validation.ts';
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
 * Checks a Messages API body with the shared field checks of ../validation.ts:
 * the message names the exact field (`messages.2.content.0.source.type`).
 * Unknown fields are ignored.
 */

const imageMediaTypes = ['image/jpeg', 'image/png', 'image/gif', 'image/webp'];

const noFiles = 'Freeway keeps no files: send the content inline (base64 or url)';

function checkImage(block: Fields, path: string): ImageBlock {
  const source = object(block.source, `${path}.source`);
  const type = oneOf(source.type, `${path}.source.type`, ['base64', 'url', 'file']);
  if (type === 'file') fail(`${path}.source`, noFiles);
  if (type === 'base64') {
    oneOf(source.media_type, `${path}.source.media_type`, imageMediaTypes);
    string(source.data, `${path}.source.data`);
  } else {
    httpUrl(source.url, `${path}.source.url`);
  }
  return block as unknown as ImageBlock;
}

function checkText(block: Fields, path: string): TextBlock {
  string(block.text, `${path}.text`);
  return block as unknown as TextBlock;
}

function checkTextBlocks(value: unknown, path: string): void {
  if (typeof value === 'string') return;
  if (!Array.isArray(value)) fail(path, phrase.type('string', 'array'));
  for (const [index, item] of value.entries()) {
    const block = object(item, `${path}.${index}`);
    oneOf(block.type, `${path}.${index}.type`, ['text']);
    checkText(block, `${path}.${index}`);
  }
}

/** A document's `content` source: a string, or text and image blocks. */
function checkContentSource(content: unknown, path: string): void {
  if (typeof content === 'string') return;
  if (!Array.isArray(content)) fail(path, phrase.type('string', 'array'));
  for (const [index, item] of content.entries()) {
    const innerPath = `${path}.${index}`;
    const inner = object(item, innerPath);
    if (oneOf(inner.type, `${innerPath}.type`, ['text', 'image']) === 'text') checkText(inner, innerPath);
    else checkImage(inner, innerPath);
  }
}

function checkDocument(block: Fields, path: string): DocumentBlock {
  const source = object(block.source, `${path}.source`);
  switch (oneOf(source.type, `${path}.source.type`, ['base64', 'url', 'text', 'content', 'file'])) {
    case 'file':
      fail(`${path}.source`, noFiles);
    case 'base64':
      oneOf(source.media_type, `${path}.source.media_type`, ['application/pdf']);
      string(source.data, `${path}.source.data`);
      break;
    case 'url':
      httpUrl(source.url, `${path}.source.url`);
      break;
    case 'text':
      string(source.data, `${path}.source.data`);
      break;
    case 'content':
      checkContentSource(source.content, `${path}.source.content`);
      break;
  }
  return block as unknown as DocumentBlock;
}

function checkToolResult(block: Fields, path: string): ToolResultBlock {
  string(block.tool_use_id, `${path}.tool_use_id`);
  const content = block.content;
  if (content !== undefined && typeof content !== 'string') {
    if (!Array.isArray(content)) fail(`${path}.content`, phrase.type('string', 'array'));
    for (const [index, item] of content.entries()) {
      const innerPath = `${path}.content.${index}`;
      const inner = object(item, innerPath);
      const type = oneOf(inner.type, `${innerPath}.type`, ['text', 'image', 'document']);
      if (type === 'text') checkText(inner, innerPath);
      else if (type === 'image') checkImage(inner, innerPath);
      else checkDocument(inner, innerPath);
    }
  }
  if (block.is_error !== undefined && typeof block.is_error !== 'boolean') fail(`${path}.is_error`, phrase.type('boolean'));
  return block as unknown as ToolResultBlock;
}

const userTypes = ['text', 'image', 'document', 'tool_result'];
const assistantTypes = ['text', 'tool_use', 'thinking', 'redacted_thinking'];

function checkUserBlock(block: Fields, path: string): UserBlock {
  switch (oneOf(block.type, `${path}.type`, userTypes)) {
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
  switch (oneOf(block.type, `${path}.type`, assistantTypes)) {
    case 'text':
      return checkText(block, path);
    case 'tool_use':
      string(block.id, `${path}.id`);
      string(block.name, `${path}.name`);
      object(block.input, `${path}.input`);
      // Providers' SDKs serialize it again, recursively.
      assertSchemaDepth(block.input, `${path}.input`);
      break;
    case 'thinking':
      string(block.thinking, `${path}.thinking`);
      break;
    case 'redacted_thinking':
      string(block.data, `${path}.data`);
      break;
  }
  return block as unknown as AssistantBlock;
}

function checkMessages(value: unknown): Message[] {
  const messages = array(value, 'messages');
  if (messages.length === 0) fail('messages', phrase.minItems(1));
  for (const [index, item] of messages.entries()) {
    const path = `messages.${index}`;
    const message = object(item, path);
    const role = oneOf(message.role, `${path}.role`, ['user', 'assistant', 'system']);
    const content = message.content;
    if (content === undefined) fail(`${path}.content`, phrase.required);
    if (typeof content === 'string') continue;
    if (!Array.isArray(content)) fail(`${path}.content`, phrase.type('string', 'array'));
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
  return messages as Message[];
}

const toolNamePattern = /^[a-zA-Z0-9_-]{1,128}$/;

function checkTools(value: unknown): Tool[] | undefined {
  if (value === undefined || value === null) return undefined;
  const tools = array(value, 'tools');
  for (const [index, item] of tools.entries()) {
    const path = `tools.${index}`;
    const tool = object(item, path);
    const type = tool.type;
    if (type !== undefined && type !== null && type !== 'custom') {
      const name = typeof tool.name === 'string' ? tool.name : String(type);
      fail(path, `${name} (${String(type)}) is a server tool, which Freeway does not run; only custom tools (name, description, input_schema) are supported`);
    }
    const name = string(tool.name, `${path}.name`);
    if (!toolNamePattern.test(name)) fail(`${path}.name`, 'must be 1 to 128 letters, digits, _ or -');
    if (tool.description !== undefined && typeof tool.description !== 'string') fail(`${path}.description`, phrase.type('string'));
    object(tool.input_schema, `${path}.input_schema`);
    assertSchemaDepth(tool.input_schema, `${path}.input_schema`);
  }
  return tools as Tool[];
}

function checkToolChoice(value: unknown, tools: Tool[] | undefined): ToolChoice | undefined {
  if (value === undefined || value === null) return undefined;
  const choice = object(value, 'tool_choice');
  const type = oneOf(choice.type, 'tool_choice.type', ['auto', 'any', 'tool', 'none']);
  if (type === 'tool') {
    const name = string(choice.name, 'tool_choice.name');
    if (!tools?.some((tool) => tool.name === name)) fail('tool_choice.name', `names no tool of the request: ${name}`);
  }
  if (choice.disable_parallel_tool_use !== undefined && typeof choice.disable_parallel_tool_use !== 'boolean') {
    fail('tool_choice.disable_parallel_tool_use', phrase.type('boolean'));
  }
  return choice as unknown as ToolChoice;
}

function checkThinking(value: unknown): Thinking | undefined {
  if (value === undefined || value === null) return undefined;
  const thinking = object(value, 'thinking');
  const type = oneOf(thinking.type, 'thinking.type', ['enabled', 'disabled', 'adaptive', 'between_tools']);
  if (thinking.display !== undefined && thinking.display !== null) oneOf(thinking.display, 'thinking.display', ['summarized', 'omitted']);
  if (type === 'enabled') {
    const budget = thinking.budget_tokens;
    if (budget === undefined) fail('thinking.budget_tokens', phrase.required);
    if (typeof budget !== 'number' || !Number.isInteger(budget)) fail('thinking.budget_tokens', phrase.type('integer'));
    if (budget < 1) fail('thinking.budget_tokens', phrase.minimum(1));
  }
  return thinking as unknown as Thinking;
}

function checkOutputConfig(value: unknown): void {
  if (value === undefined || value === null) return;
  const config = object(value, 'output_config');
  if (config.effort !== undefined && config.effort !== null) oneOf(config.effort, 'output_config.effort', ['low', 'medium', 'high', 'xhigh', 'max']);
  if (config.format !== undefined && config.format !== null) {
    const format = object(config.format, 'output_config.format');
    oneOf(format.type, 'output_config.format.type', ['json_schema']);
    object(format.schema, 'output_config.format.schema');
    assertSchemaDepth(format.schema, 'output_config.format.schema');
  }
}

/** The scalar fields of the body: sampling, stop sequences, metadata, stream. */
function checkScalars(fields: Fields): void {
  optionalNumber(fields.temperature, 'temperature', { min: 0, max: 1 });
  optionalNumber(fields.top_p, 'top_p', { min: 0, max: 1 });
  optionalNumber(fields.top_k, 'top_k', { min: 0, max: INT32_MAX, integer: true });
  const stop = fields.stop_sequences;
  if (stop !== undefined && stop !== null) {
    if (!Array.isArray(stop)) fail('stop_sequences', phrase.type('array', 'null'));
    stop.forEach((item, index) => string(item, `stop_sequences.${index}`));
  }
  const metadata = fields.metadata;
  if (metadata !== undefined && metadata !== null) {
    const user = object(metadata, 'metadata').user_id;
    if (user !== undefined && user !== null && typeof user !== 'string') fail('metadata.user_id', phrase.type('string', 'null'));
  }
  if (fields.stream !== undefined && fields.stream !== null && typeof fields.stream !== 'boolean') fail('stream', phrase.type('boolean', 'null'));
}

/**
 * A Messages API body -> the request Freeway reads, or a 400 naming the first
 * bad field. `count_tokens` bodies have no `max_tokens`.
 */
export function parseMessagesRequest(body: unknown, counting = false): MessagesRequest {
  if (!isObject(body)) fail('body', phrase.type('object'));
  const model = nonEmptyString(body.model, 'model');
  maxLength(model, 'model', MAX_MODEL_ID_LENGTH);
  if (!counting) {
    if (body.max_tokens === undefined) fail('max_tokens', phrase.required);
    optionalNumber(body.max_tokens, 'max_tokens', { min: 1, max: INT32_MAX, integer: true });
  }
  checkMessages(body.messages);
  if (body.system !== undefined && body.system !== null) checkTextBlocks(body.system, 'system');
  checkScalars(body);
  const tools = checkTools(body.tools);
  checkToolChoice(body.tool_choice, tools);
  checkThinking(body.thinking);
  checkOutputConfig(body.output_config);
  return body as unknown as MessagesRequest;
}
