import type { Config } from '../../config/index.ts';
import { assertSchemaDepth } from '../json-depth.ts';
import { INT32_MAX, MAX_MODEL_ID_LENGTH } from '../limits.ts';
import { array, fail, isObject, maxLength, nonEmptyString, object, optionalBoolean, optionalNumber, optionalObject, optionalString, phrase, string, type Fields } from '../validation.ts';
import type { ClientToolName, FunctionTool, NamespaceTool, InputFile, InputItem, InputText, InputImage, MessageItem, ReasoningEffort, ResponsesRequest, TextFormat, ToolChoice } from './types.ts';

/**
 * Parses a Responses request with the shared field checks of ../validation.ts:
 * its input items are a union whose discriminator (`type`) is optional for
 * messages, which a schema validator only reports as "matched no branch".
 * Every failure names the field.
 */

const statelessHint = 'Freeway keeps no state; send the whole conversation in input instead';

/** Fields that only make sense with state kept on the server. */
function refuseState(body: Fields): void {
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

function parseFunction(tool: Fields, field: string): FunctionTool {
  const name = string(tool.name, `${field}.name`);
  if (!toolName.test(name)) fail(`${field}.name`, 'must be 1 to 64 letters, digits, underscores or dashes');
  const parameters = tool.parameters ?? null;
  if (parameters !== null && !isObject(parameters)) fail(`${field}.parameters`, phrase.type('object'));
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

function parseNamespace(tool: Fields, field: string, into: Tools): NamespaceTool {
  const namespace = string(tool.name, `${field}.name`);
  if (!toolName.test(namespace)) fail(`${field}.name`, 'must be 1 to 64 letters, digits, underscores or dashes');
  const functions = array(tool.tools, `${field}.tools`).map((member, index): FunctionTool => {
    const at = `${field}.tools.${index}`;
    if (!isObject(member)) fail(at, phrase.type('object'));
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
  if (!Array.isArray(value)) fail('tools', phrase.type('array'));
  const result: Tools = { tools: [], functions: [], namespaced: new Map(), droppedTools: [] };
  for (const [index, tool] of value.entries()) {
    const field = `tools.${index}`;
    if (!isObject(tool)) fail(field, phrase.type('object'));
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
  const format = optionalObject(optionalObject(value, 'text')?.format, 'text.format');
  if (format === undefined) return { type: 'text' };
  switch (format.type) {
    case 'text':
    case 'json_object':
      return { type: format.type };
    case 'json_schema': {
      const schema = object(format.schema, 'text.format.schema');
      assertSchemaDepth(schema, 'text.format.schema');
      const result: TextFormat = { type: 'json_schema', name: string(format.name, 'text.format.name'), schema };
      const description = optionalString(format.description, 'text.format.description');
      if (description !== undefined) result.description = description;
      const strict = optionalBoolean(format.strict, 'text.format.strict');
      if (strict !== undefined) result.strict = strict;
      return result;
    }
    default:
      fail('text.format.type', phrase.oneOf(['text', 'json_object', 'json_schema']));
  }
}

const efforts: ReadonlySet<string> = new Set<ReasoningEffort>(['none', 'minimal', 'low', 'medium', 'high', 'xhigh', 'max']);

function parseReasoningEffort(value: unknown): ReasoningEffort | undefined {
  const effort = optionalObject(value, 'reasoning')?.effort;
  if (effort == null) return undefined;
  if (typeof effort !== 'string' || !efforts.has(effort)) fail('reasoning.effort', phrase.oneOf([...efforts]));
  return effort as ReasoningEffort;
}

function parseMetadata(value: unknown): Record<string, string> {
  const metadata = optionalObject(value, 'metadata');
  if (metadata === undefined) return {};
  const entries = Object.entries(metadata);
  if (entries.length > 16) fail('metadata', phrase.maxProperties(16));
  for (const [key, item] of entries) {
    if (key.length > 64) fail('metadata', 'keys must be at most 64 characters');
    if (typeof item !== 'string') fail(`metadata.${key}`, phrase.type('string'));
    maxLength(item, `metadata.${key}`, 512);
  }
  return metadata as Record<string, string>;
}

interface Parsed {
  hasImages: boolean;
  hasDocuments: boolean;
}

const base64DataURL = /^data:([^;,]+);base64,/;

/** A PDF inline as a base64 data URL in `file_data`, as the openai SDK sends one. */
function parseFile(part: Fields, field: string): InputFile {
  if (part.file_id != null) fail(`${field}.file_id`, 'Freeway keeps no files; send the document inline as file_data');
  if (part.file_url != null) fail(`${field}.file_url`, 'is not supported; send the document inline as file_data');
  if (part.file_data === undefined) fail(`${field}.file_data`, phrase.required);
  const data = string(part.file_data, `${field}.file_data`);
  const match = base64DataURL.exec(data);
  if (!match) fail(`${field}.file_data`, 'must be a base64 data URL (data:application/pdf;base64,...)');
  if (match[1] !== 'application/pdf') fail(`${field}.file_data`, 'only application/pdf documents are supported');
  const file: InputFile = { type: 'input_file', data: data.slice(match[0].length) };
  const filename = optionalString(part.filename, `${field}.filename`);
  if (filename !== undefined) file.filename = filename;
  return file;
}

function parseImage(part: Fields, field: string): InputImage {
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
  if (!Array.isArray(value)) fail(field, phrase.type('string', 'array'));
  return value.map((part, index): InputText | InputImage | InputFile => {
    const at = `${field}.${index}`;
    if (!isObject(part)) fail(at, phrase.type('object'));
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
    fail(`${at}.type`, phrase.oneOf(role === 'assistant' ? ['output_text', 'refusal'] : ['input_text', 'input_image', 'input_file']));
  });
}

const roles = new Set(['user', 'assistant', 'system', 'developer']);

function parseMessage(item: Fields, field: string, parsed: Parsed): MessageItem {
  const role = item.role;
  if (typeof role !== 'string' || !roles.has(role)) fail(`${field}.role`, phrase.oneOf([...roles]));
  const content = parseContent(item.content, role as MessageItem['role'], `${field}.content`, parsed);
  return { type: 'message', role, content } as MessageItem;
}

function parseToolOutput(value: unknown, field: string): string {
  if (typeof value === 'string') return value;
  if (!Array.isArray(value)) fail(field, phrase.type('string', 'array'));
  let text = '';
  for (const [index, part] of value.entries()) {
    if (!isObject(part) || part.type !== 'input_text') fail(`${field}.${index}.type`, 'only input_text parts are supported in tool outputs');
    text += string(part.text, `${field}.${index}.text`);
  }
  return text;
}

function parseItems(value: unknown, parsed: Parsed): InputItem[] {
  if (typeof value === 'string') return [{ type: 'message', role: 'user', content: [{ type: 'input_text', text: value }] }];
  if (value !== undefined && !Array.isArray(value)) fail('input', phrase.type('string', 'array'));
  const list = array(value, 'input');
  if (list.length === 0) fail('input', phrase.minItems(1));
  const items: InputItem[] = [];
  for (const [index, item] of list.entries()) {
    const field = `input.${index}`;
    if (!isObject(item)) fail(field, phrase.type('object'));
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
  if (!isObject(body)) fail('body', phrase.type('object'));
  refuseState(body);
  const model = nonEmptyString(body.model, 'model');
  maxLength(model, 'model', MAX_MODEL_ID_LENGTH);
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
    max_output_tokens: optionalNumber(body.max_output_tokens, 'max_output_tokens', { min: 1, max: INT32_MAX, integer: true }),
    reasoning_effort: parseReasoningEffort(body.reasoning),
    temperature: optionalNumber(body.temperature, 'temperature', { min: 0, max: 2 }),
    top_p: optionalNumber(body.top_p, 'top_p', { min: 0, max: 1 }),
    parallel_tool_calls: optionalBoolean(body.parallel_tool_calls, 'parallel_tool_calls'),
    metadata: parseMetadata(body.metadata),
    stream: optionalBoolean(body.stream, 'stream') ?? false,
    user: optionalString(body.safety_identifier, 'safety_identifier') ?? optionalString(body.user, 'user'),
    hasImages: parsed.hasImages,
    hasDocuments: parsed.hasDocuments,
  };
}
