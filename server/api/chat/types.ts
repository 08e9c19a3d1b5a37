/** The parts of OpenAI's chat-completions request that Freeway reads, as validated by `validate.ts`. */

export interface TextPart {
  type: 'text';
  text: string;
}

export interface ImagePart {
  type: 'image_url';
  image_url: { url: string; detail?: string };
}

/** A document given inline (`file_data`, a data URL); `file_id` is refused. */
export interface FilePart {
  type: 'file';
  file: { file_data?: string; file_id?: string; filename?: string };
}

/** Legacy function calling: the one call an assistant made. */
export interface FunctionCall {
  name: string;
  arguments: string;
}

export interface ToolCall {
  id: string;
  type: 'function';
  function: { name: string; arguments: string };
}

export type ChatMessage =
  | { role: 'system' | 'developer'; content: string | TextPart[]; name?: string }
  | { role: 'user'; content: string | Array<TextPart | ImagePart | FilePart>; name?: string }
  | { role: 'assistant'; content?: string | TextPart[] | null; tool_calls?: ToolCall[]; function_call?: FunctionCall | null; name?: string }
  | { role: 'tool'; content: string | TextPart[]; tool_call_id: string }
  | { role: 'function'; name: string; content: string | null };

export interface FunctionDefinition {
  name: string;
  description?: string;
  parameters?: Record<string, unknown>;
  strict?: boolean | null;
}

export interface FunctionTool {
  type: 'function';
  function: FunctionDefinition;
}

export type ToolChoice = 'auto' | 'none' | 'required' | { type: 'function'; function: { name: string } };

export type ResponseFormat =
  | { type: 'text' }
  | { type: 'json_object' }
  | { type: 'json_schema'; json_schema: { name?: string; description?: string; schema?: Record<string, unknown>; strict?: boolean } };

export interface ChatRequest {
  model: string;
  messages: ChatMessage[];
  stream?: boolean;
  stream_options?: { include_usage?: boolean } | null;
  temperature?: number | null;
  top_p?: number | null;
  max_tokens?: number | null;
  max_completion_tokens?: number | null;
  stop?: string | string[] | null;
  seed?: number | null;
  presence_penalty?: number | null;
  frequency_penalty?: number | null;
  tools?: FunctionTool[];
  tool_choice?: ToolChoice;
  parallel_tool_calls?: boolean | null;
  /** Legacy function calling; answered as `function_call`, not `tool_calls`. */
  functions?: FunctionDefinition[];
  function_call?: 'none' | 'auto' | { name: string };
  logprobs?: boolean | null;
  top_logprobs?: number | null;
  response_format?: ResponseFormat;
  user?: string;
  n?: number | null;
}

export type FinishReason = 'stop' | 'length' | 'tool_calls' | 'content_filter' | 'function_call';

/**
 * OpenAI's usage object, and camelCase copies of its three counts. A count the
 * upstream did not report is absent; when it reported nothing there is no usage.
 */
export interface Usage {
  prompt_tokens?: number;
  completion_tokens?: number;
  total_tokens?: number;
  prompt_tokens_details?: { cached_tokens: number };
  completion_tokens_details?: { reasoning_tokens: number };
  promptTokens?: number;
  completionTokens?: number;
  totalTokens?: number;
}
