/**
 * The parts of OpenAI's Responses request that Freeway reads, as `validate.ts`
 * leaves them: `input` is always a list of items, the echoed fields are filled
 * in with what the answer reports.
 */

export interface InputText {
  type: 'input_text' | 'output_text';
  text: string;
}

export interface InputImage {
  type: 'input_image';
  image_url: string;
  detail?: string;
}

/** A PDF sent inline: `data` is its base64 (the payload of the request's data URL). */
export interface InputFile {
  type: 'input_file';
  data: string;
  filename?: string;
}

export type MessageItem =
  | { type: 'message'; role: 'system' | 'developer'; content: InputText[] }
  | { type: 'message'; role: 'user'; content: Array<InputText | InputImage | InputFile> }
  | { type: 'message'; role: 'assistant'; content: InputText[] };

export interface FunctionCallItem {
  type: 'function_call';
  call_id: string;
  /** The name the model sees: a namespaced function's `<namespace>__<name>` (see `modelToolName`). */
  name: string;
  arguments: string;
}

export interface FunctionCallOutputItem {
  type: 'function_call_output';
  call_id: string;
  output: string;
}

/** Input items Freeway maps; `reasoning` items sent back are dropped while validating. */
export type InputItem = MessageItem | FunctionCallItem | FunctionCallOutputItem;

/** A function tool as the Response object echoes it (OpenAI's `FunctionTool`). */
export interface FunctionTool {
  type: 'function';
  name: string;
  description?: string | null;
  parameters: Record<string, unknown> | null;
  strict: boolean | null;
}

/** A `namespace` tool as the Response object echoes it: function tools grouped under a name (an MCP server's, say). */
export interface NamespaceTool {
  type: 'namespace';
  name: string;
  description: string;
  tools: FunctionTool[];
}

/** A function the model may call under another name than the client's: a namespaced function's own name and namespace. */
export interface ClientToolName {
  name: string;
  namespace: string;
}

export type ToolChoice = 'auto' | 'none' | 'required' | { type: 'function'; name: string };

export type TextFormat =
  | { type: 'text' }
  | { type: 'json_object' }
  | { type: 'json_schema'; name: string; schema: Record<string, unknown>; description?: string; strict?: boolean | null };

/** OpenAI's reasoning effort levels, which the AI SDK takes as its `reasoning` option. */
export type ReasoningEffort = 'none' | 'minimal' | 'low' | 'medium' | 'high' | 'xhigh' | 'max';

export interface ResponsesRequest {
  model: string;
  input: InputItem[];
  instructions: string | null;
  /** The function and namespace tools as sent, echoed by the Response; hosted tools dropped are not among them. */
  tools: Array<FunctionTool | NamespaceTool>;
  /** Every function the model is offered, namespaced ones under the names the model sees. */
  functions: FunctionTool[];
  /** Model-visible name -> the client's name and namespace, for the functions of namespace tools; empty without them. */
  namespaced: ReadonlyMap<string, ClientToolName>;
  /** The types of the hosted tools left out of the upstream call (HOSTED_TOOLS=drop), each once. */
  droppedTools: string[];
  tool_choice: ToolChoice;
  text: { format: TextFormat };
  max_output_tokens: number | null;
  /** `reasoning.effort`: sent to the models that take an effort, ignored by the rest. */
  reasoning_effort: ReasoningEffort | undefined;
  temperature: number | null;
  top_p: number | null;
  /** As sent; the Response echoes `true` when it was not. */
  parallel_tool_calls: boolean | undefined;
  metadata: Record<string, string>;
  stream: boolean;
  /** `safety_identifier`, else the deprecated `user`: the end-user id passed to providers that take one. */
  user: string | undefined;
  /** True when an `input_image` part is present. */
  hasImages: boolean;
  /** True when an `input_file` part (a PDF) is present. */
  hasDocuments: boolean;
}
