import type { Config } from '../../config/index.ts';
import { invalidRequest } from '../../core/errors.ts';
import { assertSchemaDepth } from '../json-depth.ts';
import { INT32_MAX, MAX_MODEL_ID_LENGTH, modelIdTooLong } from '../limits.ts';
import type { ClientToolName, FunctionTool, NamespaceTool, InputFile, InputItem, InputText, InputImage, MessageItem, ReasoningEffort, ResponsesRequest, TextFormat, ToolChoice } from './types.ts';

/**
 * Validates a Responses request by hand: its input items are a union whose
 * discriminator (`type`) is optional for messages, which a schema validator
 * only reports as "matched no branch". Every failure names the field.
 */

type Json = Record<string, unknown>;

function fail(field: string, detail: string): never {
  throw invalidRequest(`Validation failed: ${field}: ${detail}`);
}

const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);

function typeName(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  return typeof value;
}

function string(value: unknown, field: string): string {
  if (value === undefined) fail(field, 'is required');
  if (typeof value !== 'string') fail(field, `must be string, not ${typeName(value)}`);
  return value;
}

function optionalString(value: unknown, field: string): string | undefined {
  return value == null ? undefined : string(value, field);
}

function optionalBoolean(value: unknown, field: string): boolean | undefined {
  if (value == null) return undefined;
  if (typeof value !== 'boolean') fail(field, `must be boolean, not ${typeName(value)}`);
  return value;
}

function optionalNumber(value: unknown, field: string, min: number, max: number, integer = false): number | null {
  if (value == null) return null;
  if (typeof value !== 'number' || !Number.isFinite(value)) fail(field, `must be ${integer ? 'integer' : 'number'}, not ${typeName(value)}`);
  if (integer && !Number.isInteger(value)) fail(field, 'must be integer');
  if (value < min) fail(field, `must be >= ${min}`);
  if (value > max) fail(field, `must be <= ${max}`);
  return value;
}

const statelessHint = 'Freeway keeps no state; send the whole conversation in input instead';

/** Fields that only make sense with state kept on the server. */
function refuseState(body: Json): void {
  if (body.previous_response_id != null) fail('previous_response_id', statelessHint);
  if (body.conversation != null) fail('conversation', statelessHint);
  if (body.background === true) fail('background', 'Freeway keeps no state, so it cannot run a response in the background');
  if (body.prompt != null) fail('prompt', 'Freeway keeps no state, so it has no stored prompts; send instructions and input instead');
}

const toolName = /^[A-Za-z0-9_-]{1,64}$/;

/**
 * OpenAI's tools that run on OpenAI's servers (or call out from them, `mcp`):
 * Freeway has nothing to run them with. `tool_search` is here too: Freeway
 * offers every function up front, deferred or not, so there is nothing to search.
 */
const hostedTools: ReadonlySet<string> = new Set([
  'web_search',
  'web_search_2025_08_26',
  'web_search_preview',
  'web_search_preview_2025_03_11',
  'file_search',
  'code_interpreter',
  'computer',
  'computer_use',
  'computer_use_preview',
  'image_generation',
  'mcp',
  'tool_search',
  'programmatic_tool_calling',
]);

export interface ResponsesParseOptions {
  /** HOSTED_TOOLS: leave hosted tools out of the upstream call and say so (`drop`), or refuse the request (`reject`). */
  readonly hostedTools: Config['api']['hostedTools'];
}

/**
 * The name the model sees for a function of a namespace: the namespace and the
 * name joined by `__` (Codex's MCP namespaces, `mcp__server__`, already end in it).
 */
export function modelToolName(namespace: string, name: string): string {
  return namespace.endsWith('__') ? namespace + name : `${namespace}__${name}`;
}

function parseFunction(tool: Json, field: string): FunctionTool {
  const name = string(tool.name, `${field}.name`);
  if (!toolName.test(name)) fail(`${field}.name`, 'must be 1 to 64 letters, digits, underscores or dashes');
  const parameters = tool.parameters ?? null;
  if (parameters !== null && !isObject(parameters)) fail(`${field}.parameters`, `must be object, not ${typeName(parameters)}`);
  assertSchemaDepth(parameters, `${field}.parameters`);
  const description = optionalString(tool.description, `${field}.description`);
  const result: FunctionTool = { type: 'function', name, parameters, strict: optionalBoolean(tool.strict, `${field}.strict`) ?? null };
  if (description !== undefined) result.description = description;
  return result;
}

interface Tools {
  tools: Array<FunctionTool | NamespaceTool>;
  functions: FunctionTool[];
  namespaced: Map<string, ClientToolName>;
  droppedTools: string[];
}

const noNamespaces: ReadonlyMap<string, ClientToolName> = new Map();

function parseNamespace(tool: Json, field: string, into: Tools): NamespaceTool {
  const namespace = string(tool.name, `${field}.name`);
  if (!toolName.test(namespace)) fail(`${field}.name`, 'must be 1 to 64 letters, digits, underscores or dashes');
  const members = tool.tools;
  if (!Array.isArray(members)) fail(`${field}.tools`, members === undefined ? 'is required' : `must be array, not ${typeName(members)}`);
  const functions = members.map((member, index): FunctionTool => {
    const at = `${field}.tools.${index}`;
    if (!isObject(member)) fail(at, `must be object, not ${typeName(member)}`);
    if (member.type !== 'function') fail(`${at}.type`, `${String(member.type)} tools are not supported in a namespace; Freeway offers only function tools`);
    const fn = parseFunction(member, at);
    const visible = modelToolName(namespace, fn.name);
    if (!toolName.test(visible)) fail(`${at}.name`, `with its namespace (${visible}) must be at most 64 characters, the most a model's tool name may have`);
    if (into.namespaced.has(visible)) fail(`${at}.name`, `${fn.name} is in namespace ${namespace} twice`);
    into.namespaced.set(visible, { name: fn.name, namespace });
    into.functions.push({ ...fn, name: visible });
    return fn;
  });
  return { type: 'namespace', name: namespace, description: optionalString(tool.description, `${field}.description`) ?? '', tools: functions };
}

function parseTools(value: unknown, options: ResponsesParseOptions): Tools {
  if (value == null) return { tools: [], functions: [], namespaced: noNamespaces as Map<string, ClientToolName>, droppedTools: [] };
  if (!Array.isArray(value)) fail('tools', `must be array, not ${typeName(value)}`);
  const result: Tools = { tools: [], functions: [], namespaced: new Map(), droppedTools: [] };
  for (const [index, tool] of value.entries()) {
    const field = `tools.${index}`;
    if (!isObject(tool)) fail(field, `must be object, not ${typeName(tool)}`);
    const type = string(tool.type, `${field}.type`);
    if (type === 'function') {
      const fn = parseFunction(tool, field);
      result.tools.push(fn);
      result.functions.push(fn);
    } else if (type === 'namespace') {
      result.tools.push(parseNamespace(tool, field, result));
    } else if (hostedTools.has(type)) {
      if (options.hostedTools === 'reject') {
        fail(`${field}.type`, `${type} is a hosted tool, which Freeway cannot run; it offers only function tools (with HOSTED_TOOLS=drop, the default, hosted tools are left out)`);
      }
      // Only the type is kept: the rest (an MCP server's URL and token) goes no further.
      if (!result.droppedTools.includes(type)) result.droppedTools.push(type);
    } else {
      fail(`${field}.type`, `${type} tools are not supported; Freeway offers only function tools`);
    }
  }
  const seen = new Set<string>();
  for (const fn of result.functions) {
    if (seen.has(fn.name)) fail('tools', `two functions are offered to the model as ${fn.name}${result.namespaced.has(fn.name) ? ' (a namespaced function\'s name joins its namespace and name with __)' : ''}`);
    seen.add(fn.name);
  }
  if (result.namespaced.size === 0) result.namespaced = noNamespaces as Map<string, ClientToolName>;
  return result;
}

function parseToolChoice(value: unknown, namespaced: ReadonlyMap<string, ClientToolName>): ToolChoice {
  if (value == null) return 'auto';
  if (value === 'auto' || value === 'none' || value === 'required') return value;
  if (isObject(value) && value.type === 'function') {
    const name = string(value.name, 'tool_choice.name');
    const namespace = optionalString(value.namespace, 'tool_choice.namespace');
    if (namespace === undefined) return { type: 'function', name };
    const visible = modelToolName(namespace, name);
    if (!namespaced.has(visible)) fail('tool_choice', `names ${name} in namespace ${namespace}, which tools do not offer`);
    return { type: 'function', name: visible };
  }
  if (isObject(value) && typeof value.type === 'string') {
    if (hostedTools.has(value.type)) {
      fail('tool_choice.type', `forces ${value.type}, a hosted tool, which Freeway cannot run; force a function tool, or use auto, none or required`);
    }
    fail('tool_choice.type', `${value.type} is not supported; use auto, none, required or {"type": "function", "name": ...}`);
  }
  fail('tool_choice', 'must be auto, none, required or {"type": "function", "name": ...}');
}

function parseTextFormat(value: unknown): TextFormat {
  if (value == null) return { type: 'text' };
  if (!isObject(value)) fail('text', `must be object, not ${typeName(value)}`);
  const format = value.format;
  if (format == null) return { type: 'text' };
  if (!isObject(format)) fail('text.format', `must be object, not ${typeName(format)}`);
  switch (format.type) {
    case 'text':
    case 'json_object':
      return { type: format.type };
    case 'json_schema': {
      const schema = format.schema;
      if (!isObject(schema)) fail('text.format.schema', schema === undefined ? 'is required' : `must be object, not ${typeName(schema)}`);
      assertSchemaDepth(schema, 'text.format.schema');
      const result: TextFormat = { type: 'json_schema', name: string(format.name, 'text.format.name'), schema };
      const description = optionalString(format.description, 'text.format.description');
      if (description !== undefined) result.description = description;
      const strict = optionalBoolean(format.strict, 'text.format.strict');
      if (strict !== undefined) result.strict = strict;
      return result;
    }
    default:
      fail('text.format.type', 'must be one of text, json_object, json_schema');
  }
}

const efforts: ReadonlySet<string> = new Set<ReasoningEffort>(['none', 'minimal', 'low', 'medium', 'high', 'xhigh', 'max']);

function parseReasoningEffort(value: unknown): ReasoningEffort | undefined {
  if (value == null) return undefined;
  if (!isObject(value)) fail('reasoning', `must be object, not ${typeName(value)}`);
  const effort = value.effort;
  if (effort == null) return undefined;
  if (typeof effort !== 'string' || !efforts.has(effort)) fail('reasoning.effort', `must be one of ${[...efforts].join(', ')}`);
  return effort as ReasoningEffort;
}

function parseMetadata(value: unknown): Record<string, string> {
  if (value == null) return {};
  if (!isObject(value)) fail('metadata', `must be object, not ${typeName(value)}`);
  const entries = Object.entries(value);
  if (entries.length > 16) fail('metadata', 'must have at most 16 keys');
  for (const [key, item] of entries) {
    if (key.length > 64) fail('metadata', 'keys must be at most 64 characters');
    if (typeof item !== 'string') fail(`metadata.${key}`, `must be string, not ${typeName(item)}`);
    if (item.length > 512) fail(`metadata.${key}`, 'must be at most 512 characters');
  }
  return value as Record<string, string>;
}

interface Parsed {
  hasImages: boolean;
  hasDocuments: boolean;
}

const base64DataURL = /^data:([^;,]+);base64,/;

/** A PDF inline as a base64 data URL in `file_data`, as the openai SDK sends one. */
function parseFile(part: Json, field: string): InputFile {
  if (part.file_id != null) fail(`${field}.file_id`, 'Freeway keeps no files; send the document inline as file_data');
  if (part.file_url != null) fail(`${field}.file_url`, 'is not supported; send the document inline as file_data');
  if (part.file_data === undefined) fail(`${field}.file_data`, 'is required');
  const data = string(part.file_data, `${field}.file_data`);
  const match = base64DataURL.exec(data);
  if (!match) fail(`${field}.file_data`, 'must be a base64 data URL (data:application/pdf;base64,...)');
  if (match[1] !== 'application/pdf') fail(`${field}.file_data`, 'only application/pdf documents are supported');
  const file: InputFile = { type: 'input_file', data: data.slice(match[0].length) };
  const filename = optionalString(part.filename, `${field}.filename`);
  if (filename !== undefined) file.filename = filename;
  return file;
}

function parseImage(part: Json, field: string): InputImage {
  if (part.file_id != null) fail(`${field}.file_id`, 'Freeway keeps no state and has no uploaded files; send image_url as an http(s) or data URL');
  const url = string(part.image_url, `${field}.image_url`);
  if (!url.startsWith('data:')) {
    const protocol = URL.parse(url)?.protocol;
    if (protocol !== 'http:' && protocol !== 'https:') fail(`${field}.image_url`, 'must be an http(s) URL or a data URL');
  }
  const image: InputImage = { type: 'input_image', image_url: url };
  if (typeof part.detail === 'string') image.detail = part.detail;
  return image;
}

/** A message's content: a string, or parts of the types its role may send. */
function parseContent(value: unknown, role: MessageItem['role'], field: string, parsed: Parsed): Array<InputText | InputImage | InputFile> {
  if (typeof value === 'string') return [{ type: 'input_text', text: value }];
  if (!Array.isArray(value)) fail(field, `must be string or array, not ${typeName(value)}`);
  return value.map((part, index): InputText | InputImage | InputFile => {
    const at = `${field}.${index}`;
    if (!isObject(part)) fail(at, `must be object, not ${typeName(part)}`);
    switch (part.type) {
      case 'input_text':
      case 'output_text':
        return { type: part.type, text: string(part.text, `${at}.text`) };
      case 'refusal':
        if (role !== 'assistant') break;
        return { type: 'output_text', text: string(part.refusal, `${at}.refusal`) };
      case 'input_image':
        if (role !== 'user') fail(`${at}.type`, 'images are only taken in user messages');
        parsed.hasImages = true;
        return parseImage(part, at);
      case 'input_file':
        if (role !== 'user') fail(`${at}.type`, 'files are only taken in user messages');
        parsed.hasDocuments = true;
        return parseFile(part, at);
      case 'input_audio':
        fail(`${at}.type`, 'input_audio parts are not supported; send text, images or PDFs');
    }
    fail(`${at}.type`, role === 'assistant' ? 'must be one of output_text, refusal' : 'must be one of input_text, input_image, input_file');
  });
}

const roles = new Set(['user', 'assistant', 'system', 'developer']);

function parseMessage(item: Json, field: string, parsed: Parsed): MessageItem {
  const role = item.role;
  if (typeof role !== 'string' || !roles.has(role)) fail(`${field}.role`, 'must be one of user, assistant, system, developer');
  const content = parseContent(item.content, role as MessageItem['role'], `${field}.content`, parsed);
  return { type: 'message', role, content } as MessageItem;
}

function parseToolOutput(value: unknown, field: string): string {
  if (typeof value === 'string') return value;
  if (!Array.isArray(value)) fail(field, `must be string or array, not ${typeName(value)}`);
  let text = '';
  for (const [index, part] of value.entries()) {
    if (!isObject(part) || part.type !== 'input_text') fail(`${field}.${index}.type`, 'only input_text parts are supported in tool outputs');
    text += string(part.text, `${field}.${index}.text`);
  }
  return text;
}

function parseItems(value: unknown, parsed: Parsed): InputItem[] {
  if (typeof value === 'string') return [{ type: 'message', role: 'user', content: [{ type: 'input_text', text: value }] }];
  if (value === undefined) fail('input', 'is required');
  if (!Array.isArray(value)) fail('input', `must be string or array, not ${typeName(value)}`);
  if (value.length === 0) fail('input', 'must not be empty');
  const items: InputItem[] = [];
  for (const [index, item] of value.entries()) {
    const field = `input.${index}`;
    if (!isObject(item)) fail(field, `must be object, not ${typeName(item)}`);
    switch (item.type ?? 'message') {
      case 'message':
        items.push(parseMessage(item, field, parsed));
        break;
      case 'function_call': {
        const name = string(item.name, `${field}.name`);
        const namespace = optionalString(item.namespace, `${field}.namespace`);
        items.push({
          type: 'function_call',
          call_id: string(item.call_id, `${field}.call_id`),
          name: namespace === undefined ? name : modelToolName(namespace, name),
          arguments: string(item.arguments, `${field}.arguments`),
        });
        break;
      }
      case 'function_call_output':
        items.push({ type: 'function_call_output', call_id: string(item.call_id, `${field}.call_id`), output: parseToolOutput(item.output, `${field}.output`) });
        break;
      case 'reasoning':
        // A model's earlier reasoning, sent back: providers take no reasoning in their input.
        break;
      case 'item_reference':
        fail(field, `${statelessHint} (with the AI SDK, set providerOptions.openai.store to false)`);
      default:
        fail(`${field}.type`, `${String(item.type)} items are not supported; send message, function_call and function_call_output items`);
    }
  }
  return items;
}

/** Checks a parsed body; throws a 400 naming the first bad field. */
export function parseResponsesRequest(body: unknown, options: ResponsesParseOptions = { hostedTools: 'drop' }): ResponsesRequest {
  if (!isObject(body)) fail('body', `must be object, not ${typeName(body)}`);
  refuseState(body);
  if (body.model === undefined) fail('model', 'is required');
  const model = string(body.model, 'model');
  if (model === '') fail('model', 'must not be empty');
  if (model.length > MAX_MODEL_ID_LENGTH) fail('model', modelIdTooLong);
  const parsed: Parsed = { hasImages: false, hasDocuments: false };
  const input = parseItems(body.input, parsed);
  const tools = parseTools(body.tools, options);
  return {
    model,
    input,
    instructions: optionalString(body.instructions, 'instructions') ?? null,
    tools: tools.tools,
    functions: tools.functions,
    namespaced: tools.namespaced,
    droppedTools: tools.droppedTools,
    tool_choice: parseToolChoice(body.tool_choice, tools.namespaced),
    text: { format: parseTextFormat(body.text) },
    max_output_tokens: optionalNumber(body.max_output_tokens, 'max_output_tokens', 1, INT32_MAX, true),
    reasoning_effort: parseReasoningEffort(body.reasoning),
    temperature: optionalNumber(body.temperature, 'temperature', 0, 2),
    top_p: optionalNumber(body.top_p, 'top_p', 0, 1),
    parallel_tool_calls: optionalBoolean(body.parallel_tool_calls, 'parallel_tool_calls'),
    metadata: parseMetadata(body.metadata),
    stream: optionalBoolean(body.stream, 'stream') ?? false,
    user: optionalString(body.safety_identifier, 'safety_identifier') ?? optionalString(body.user, 'user'),
    hasImages: parsed.hasImages,
    hasDocuments: parsed.hasDocuments,
  };
}
