/**
 * The parts of Gemini's GenerateContentRequest that Freeway reads, as checked by
 * `validate.ts` (https://ai.google.dev/api/generate-content, and the
 * google/ai/generativelanguage/v1beta protos, read 2026-11-27). Fields Freeway
 * does not read (`safetySettings`, `cachedContent`, `labels`, ...) are accepted and
 * ignored.
 */

export interface InlineData {
  mimeType: string;
  /** Base64. */
  data: string;
}

export interface FileData {
  mimeType?: string;
  fileUri: string;
}

export interface FunctionCall {
  id?: string;
  name: string;
  args?: Record<string, unknown>;
}

export interface FunctionResponse {
  id?: string;
  name: string;
  response: Record<string, unknown>;
}

/** One part: exactly one of `text`, `inlineData`, `fileData`, `functionCall`, `functionResponse`. */
export interface Part {
  text?: string;
  inlineData?: InlineData;
  fileData?: FileData;
  functionCall?: FunctionCall;
  functionResponse?: FunctionResponse;
  /** A model's thought summary (with `text`). */
  thought?: boolean;
  /** Google's opaque signature of the model's thinking, passed back as it came. */
  thoughtSignature?: string;
}

export interface Content {
  /** `user` when absent. */
  role?: 'user' | 'model';
  parts: Part[];
}

export interface FunctionDeclaration {
  name: string;
  description?: string;
  /** Google's OpenAPI subset, upper-case types (`OBJECT`). */
  parameters?: Record<string, unknown>;
  /** JSON Schema; wins over `parameters`. */
  parametersJsonSchema?: Record<string, unknown>;
}

export type CallingMode = 'AUTO' | 'ANY' | 'NONE' | 'VALIDATED' | 'MODE_UNSPECIFIED';

export interface ToolConfig {
  functionCallingConfig?: { mode?: CallingMode; allowedFunctionNames?: string[] };
}

export type ThinkingLevel = 'THINKING_LEVEL_UNSPECIFIED' | 'MINIMAL' | 'LOW' | 'MEDIUM' | 'HIGH' | 'XHIGH';

export interface ThinkingConfig {
  includeThoughts?: boolean;
  /** 0 turns thinking off, -1 leaves it to the model. */
  thinkingBudget?: number;
  thinkingLevel?: ThinkingLevel;
}

export interface GenerationConfig {
  temperature?: number;
  topP?: number;
  topK?: number;
  maxOutputTokens?: number;
  stopSequences?: string[];
  seed?: number;
  presencePenalty?: number;
  frequencyPenalty?: number;
  responseMimeType?: 'text/plain' | 'application/json';
  responseSchema?: Record<string, unknown>;
  responseJsonSchema?: Record<string, unknown>;
  thinkingConfig?: ThinkingConfig;
}

/** A generateContent or streamGenerateContent request, with what its path and query say. */
export interface GeminiRequest {
  /** From the path, as the caller named it. */
  readonly model: string;
  /** streamGenerateContent. */
  readonly stream: boolean;
  /** `alt=sse`: server-sent events; without it a stream is one JSON array. */
  readonly sse: boolean;
  readonly contents: Content[];
  readonly systemInstruction?: Content;
  /** Every function declaration of `tools`, in order. */
  readonly functions: FunctionDeclaration[];
  /** Tools that are not functions (`googleSearch`, `urlContext`, `codeExecution`, ...), by their field: left out of the upstream call. */
  readonly droppedTools: string[];
  readonly toolConfig?: ToolConfig;
  readonly generationConfig?: GenerationConfig;
}
