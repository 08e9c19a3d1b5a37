/**
 * The parts of Anthropic's Messages API request that Freeway reads, as checked
 * by `validate.ts`. Fields Freeway does not read (`cache_control`, `citations`,
 * `container`, ...) are accepted and ignored.
 */

export interface TextBlock {
  type: 'text';
  text: string;
}

export type ImageSource = { type: 'base64'; media_type: string; data: string } | { type: 'url'; url: string };

export interface ImageBlock {
  type: 'image';
  source: ImageSource;
}

export type DocumentSource =
  | { type: 'base64'; media_type: 'application/pdf'; data: string }
  | { type: 'url'; url: string }
  | { type: 'text'; media_type: string; data: string }
  | { type: 'content'; content: string | Array<TextBlock | ImageBlock> };

export interface DocumentBlock {
  type: 'document';
  source: DocumentSource;
  title?: string | null;
  context?: string | null;
}

export interface ToolUseBlock {
  type: 'tool_use';
  id: string;
  name: string;
  input: unknown;
}

export interface ToolResultBlock {
  type: 'tool_result';
  tool_use_id: string;
  content?: string | Array<TextBlock | ImageBlock | DocumentBlock>;
  is_error?: boolean;
}

export interface ThinkingBlock {
  type: 'thinking';
  thinking: string;
  signature?: string;
}

export interface RedactedThinkingBlock {
  type: 'redacted_thinking';
  data: string;
}

export type UserBlock = TextBlock | ImageBlock | DocumentBlock | ToolResultBlock;
export type AssistantBlock = TextBlock | ToolUseBlock | ThinkingBlock | RedactedThinkingBlock;

export type Message =
  | { role: 'user'; content: string | UserBlock[] }
  | { role: 'assistant'; content: string | AssistantBlock[] }
  | { role: 'system'; content: string | TextBlock[] };

export interface Tool {
  name: string;
  description?: string;
  input_schema: Record<string, unknown>;
}

export type ToolChoice =
  | { type: 'auto'; disable_parallel_tool_use?: boolean }
  | { type: 'any'; disable_parallel_tool_use?: boolean }
  | { type: 'tool'; name: string; disable_parallel_tool_use?: boolean }
  | { type: 'none' };

export type Thinking =
  | { type: 'enabled'; budget_tokens: number; display?: 'summarized' | 'omitted' | null }
  | { type: 'disabled' }
  | { type: 'adaptive'; display?: 'summarized' | 'omitted' | null }
  | { type: 'between_tools' };

export type Effort = 'low' | 'medium' | 'high' | 'xhigh' | 'max';

export interface MessagesRequest {
  model: string;
  /** Required by `POST /v1/messages`; absent from `count_tokens` bodies. */
  max_tokens: number;
  messages: Message[];
  system?: string | TextBlock[];
  temperature?: number;
  top_p?: number;
  top_k?: number;
  stop_sequences?: string[];
  tools?: Tool[];
  tool_choice?: ToolChoice;
  thinking?: Thinking;
  metadata?: { user_id?: string | null };
  output_config?: { effort?: Effort | null; format?: { type: 'json_schema'; schema: Record<string, unknown> } | null };
  stream?: boolean;
}

/** Anthropic's `stop_reason` values Freeway can report. */
export type StopReason = 'end_turn' | 'max_tokens' | 'stop_sequence' | 'tool_use' | 'refusal';
