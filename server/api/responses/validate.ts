import type { Config } from '../../config/index.ts';
import { compileBody, fail } from '../validation.ts';
import { responsesSchema } from './schema.ts';
import type { ClientToolName, FunctionTool, NamespaceTool, InputItem, MessageItem, ReasoningEffort, ResponsesRequest, TextFormat, ToolChoice } from './types.ts';

/**
 * Parses a Responses request: the schema (schema.ts) checks its shape, and
 * what is left here maps it to what Freeway reads (`input` as items, namespaced
 * functions under the names the model sees) and refuses what depends on
 * settings or on several fields at once.
 */

/** A part of a message's content, as the schema has checked it. */
interface BodyPart {
  type: 'input_text' | 'output_text' | 'refusal' | 'input_image' | 'input_file';
  text?: string;
  refusal?: string;
  image_url?: string;
  detail?: unknown;
  file_data?: string;
  filename?: string;
}

/** An input item, as the schema has checked it. */
interface BodyItem {
  type?: string | null;
  role?: MessageItem['role'];
  content?: string | BodyPart[];
  name?: string;
  namespace?: string;
  call_id?: string;
  arguments?: string;
  output?: string | Array<{ text: string }>;
}

interface BodyTool {
  type: string;
  name?: string;
  description?: string | null;
  parameters?: Record<string, unknown> | null;
  strict?: boolean | null;
  tools?: BodyTool[];
}

/** The body, as the schema has checked it. */
interface ResponsesBody {
  model: string;
  input: string | BodyItem[];
  instructions?: string | null;
  tools?: BodyTool[] | null;
  tool_choice?: 'auto' | 'none' | 'required' | null | { type: string; name?: string; namespace?: string };
  text?: { format?: { type: 'text' | 'json_object' | 'json_schema'; schema?: Record<string, unknown>; name?: string; description?: string | null; strict?: boolean | null } | null } | null;
  max_output_tokens?: number | null;
  reasoning?: { effort?: ReasoningEffort | null } | null;
  temperature?: number | null;
  top_p?: number | null;
  parallel_tool_calls?: boolean | null;
  metadata?: Record<string, string> | null;
  stream?: boolean | null;
  safety_identifier?: string | null;
  user?: string | null;
}

const checkBody = compileBody<ResponsesBody>(responsesSchema);

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

function functionTool(tool: BodyTool): FunctionTool {
  const result: FunctionTool = { type: 'function', name: tool.name as string, parameters: tool.parameters ?? null, strict: tool.strict ?? null };
  if (tool.description != null) result.description = tool.description;
  return result;
}

interface Tools {
  tools: Array<FunctionTool | NamespaceTool>;
  functions: FunctionTool[];
  namespaced: Map<string, ClientToolName>;
  droppedTools: string[];
}

const noNamespaces: ReadonlyMap<string, ClientToolName> = new Map();

function namespaceTool(tool: BodyTool, field: string, into: Tools): NamespaceTool {
  const namespace = tool.name as string;
  const functions = (tool.tools ?? []).map((member, index): FunctionTool => {
    const fn = functionTool(member);
    const visible = modelToolName(namespace, fn.name);
    const at = `${field}.tools.${index}`;
    if (!toolName.test(visible)) fail(`${at}.name`, `with its namespace (${visible}) must be at most 64 characters, the most a model's tool name may have`);
    if (into.namespaced.has(visible)) fail(`${at}.name`, `${fn.name} is in namespace ${namespace} twice`);
    into.namespaced.set(visible, { name: fn.name, namespace });
    into.functions.push({ ...fn, name: visible });
    return fn;
  });
  return { type: 'namespace', name: namespace, description: tool.description ?? '', tools: functions };
}

function readTools(value: BodyTool[] | null | undefined, options: ResponsesParseOptions): Tools {
  if (value == null) return { tools: [], functions: [], namespaced: noNamespaces as Map<string, ClientToolName>, droppedTools: [] };
  const result: Tools = { tools: [], functions: [], namespaced: new Map(), droppedTools: [] };
  for (const [index, tool] of value.entries()) {
    const field = `tools.${index}`;
    const type = tool.type;
    if (type === 'function') {
      const fn = functionTool(tool);
      result.tools.push(fn);
      result.functions.push(fn);
    } else if (type === 'namespace') {
      result.tools.push(namespaceTool(tool, field, result));
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

function readToolChoice(value: ResponsesBody['tool_choice'], namespaced: ReadonlyMap<string, ClientToolName>): ToolChoice {
  if (value == null) return 'auto';
  if (typeof value === 'string') return value;
  if (value.type === 'function') {
    const name = value.name as string;
    if (value.namespace === undefined) return { type: 'function', name };
    const visible = modelToolName(value.namespace, name);
    if (!namespaced.has(visible)) fail('tool_choice', `names ${name} in namespace ${value.namespace}, which tools do not offer`);
    return { type: 'function', name: visible };
  }
  if (hostedTools.has(value.type)) {
    fail('tool_choice.type', `forces ${value.type}, a hosted tool, which Freeway cannot run; force a function tool, or use auto, none or required`);
  }
  fail('tool_choice.type', `${value.type} is not supported; use auto, none, required or {"type": "function", "name": ...}`);
}

function readTextFormat(value: ResponsesBody['text']): TextFormat {
  const format = value?.format;
  if (format == null || format.type === 'text') return { type: 'text' };
  if (format.type === 'json_object') return { type: 'json_object' };
  const result: TextFormat = { type: 'json_schema', name: format.name as string, schema: format.schema as Record<string, unknown> };
  if (format.description != null) result.description = format.description;
  if (format.strict != null) result.strict = format.strict;
  return result;
}

interface Parsed {
  hasImages: boolean;
  hasDocuments: boolean;
}

const base64DataURL = /^data:[^;,]+;base64,/;

/** A message's content as parts: images and PDFs (user messages only, as the schema says) inline. */
function readContent(value: string | BodyPart[], parsed: Parsed): MessageItem['content'] {
  if (typeof value === 'string') return [{ type: 'input_text', text: value }];
  return value.map((part) => {
    switch (part.type) {
      case 'refusal':
        return { type: 'output_text', text: part.refusal as string };
      case 'input_image': {
        parsed.hasImages = true;
        return typeof part.detail === 'string' ? { type: 'input_image', image_url: part.image_url as string, detail: part.detail } : { type: 'input_image', image_url: part.image_url as string };
      }
      case 'input_file': {
        parsed.hasDocuments = true;
        const data = part.file_data as string;
        const file = { type: 'input_file' as const, data: data.slice((base64DataURL.exec(data) as RegExpExecArray)[0].length) };
        return part.filename === undefined ? file : { ...file, filename: part.filename };
      }
      default:
        return { type: part.type, text: part.text as string };
    }
  });
}

function readItems(value: ResponsesBody['input'], parsed: Parsed): InputItem[] {
  if (typeof value === 'string') return [{ type: 'message', role: 'user', content: [{ type: 'input_text', text: value }] }];
  const items: InputItem[] = [];
  for (const item of value) {
    switch (item.type ?? 'message') {
      case 'message':
        items.push({ type: 'message', role: item.role, content: readContent(item.content as string | BodyPart[], parsed) } as MessageItem);
        break;
      case 'function_call': {
        const name = item.name as string;
        items.push({
          type: 'function_call',
          call_id: item.call_id as string,
          name: item.namespace === undefined ? name : modelToolName(item.namespace, name),
          arguments: item.arguments as string,
        });
        break;
      }
      case 'function_call_output': {
        const output = item.output as string | Array<{ text: string }>;
        items.push({ type: 'function_call_output', call_id: item.call_id as string, output: typeof output === 'string' ? output : output.map((part) => part.text).join('') });
        break;
      }
      // `reasoning`: a model's earlier reasoning, sent back; providers take no reasoning in their input.
    }
  }
  return items;
}

/** Checks a parsed body; throws a 400 naming the first bad field. */
export function parseResponsesRequest(input: unknown, options: ResponsesParseOptions = { hostedTools: 'drop' }): ResponsesRequest {
  const body = checkBody(input);
  const parsed: Parsed = { hasImages: false, hasDocuments: false };
  const items = readItems(body.input, parsed);
  const tools = readTools(body.tools, options);
  return {
    model: body.model,
    input: items,
    instructions: body.instructions ?? null,
    tools: tools.tools,
    functions: tools.functions,
    namespaced: tools.namespaced,
    droppedTools: tools.droppedTools,
    tool_choice: readToolChoice(body.tool_choice, tools.namespaced),
    text: { format: readTextFormat(body.text) },
    max_output_tokens: body.max_output_tokens ?? null,
    reasoning_effort: body.reasoning?.effort ?? undefined,
    temperature: body.temperature ?? null,
    top_p: body.top_p ?? null,
    parallel_tool_calls: body.parallel_tool_calls ?? undefined,
    metadata: body.metadata ?? {},
    stream: body.stream ?? false,
    user: body.safety_identifier ?? body.user ?? undefined,
    hasImages: parsed.hasImages,
    hasDocuments: parsed.hasDocuments,
  };
}
