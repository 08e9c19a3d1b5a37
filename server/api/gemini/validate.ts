import { MAX_MODEL_ID_LENGTH } from '../limits.ts';
import { compileBody, fail } from '../validation.ts';
import { generateContentSchema, imageType, textType } from './schema.ts';
import type { Content, FunctionDeclaration, GeminiRequest, GenerationConfig, ToolConfig } from './types.ts';

/**
 * Checks a Gemini GenerateContentRequest against its schema (schema.ts), then
 * what the schema cannot say: tools Google runs itself (HOSTED_TOOLS), allowed
 * function names that name a declaration, one candidate.
 */

const imagePattern = new RegExp(imageType);
const textPattern = new RegExp(textType);
/** The inline data types a model of Freeway's reads as an image, and as text (the schema's own patterns). */
export const isImageType = (mimeType: string): boolean => imagePattern.test(mimeType);
export const isTextType = (mimeType: string): boolean => textPattern.test(mimeType);

/** The body as the schema has checked it. */
interface GenerateContentBody {
  contents: Content[];
  systemInstruction?: Content | null;
  tools?: Array<Record<string, unknown> & { functionDeclarations?: FunctionDeclaration[] }> | null;
  toolConfig?: ToolConfig | null;
  generationConfig?: (GenerationConfig & { candidateCount?: number | null }) | null;
}

const checkBody = compileBody<GenerateContentBody>(generateContentSchema);

/** HOSTED_TOOLS: what becomes of tools Google runs itself. */
export type HostedTools = 'drop' | 'reject';

/**
 * `tools`: function declarations, and tools Google runs itself (`googleSearch`, `urlContext`,
 * `codeExecution`, ...), which no provider runs for Freeway: named by their field to be left
 * out, or refused with HOSTED_TOOLS=reject.
 */
function readTools(tools: GenerateContentBody['tools'], hostedTools: HostedTools): { functions: FunctionDeclaration[]; droppedTools: string[] } {
  const functions: FunctionDeclaration[] = [];
  // A set: a tool may name many fields, each looked up once.
  const droppedTools = new Set<string>();
  for (const [index, tool] of (tools ?? []).entries()) {
    for (const field of Object.keys(tool)) {
      if (field === 'functionDeclarations') continue;
      if (hostedTools === 'reject') fail(`tools.${index}.${field}`, 'is a tool Google runs itself, which Freeway does not run; only functionDeclarations are taken (HOSTED_TOOLS=reject)');
      droppedTools.add(field);
    }
    if (tool.functionDeclarations) functions.push(...tool.functionDeclarations);
  }
  return { functions, droppedTools: [...droppedTools] };
}

/** Every allowed function name names a declaration of the request. */
function checkAllowedNames(config: ToolConfig | null | undefined, functions: readonly FunctionDeclaration[]): void {
  const names = config?.functionCallingConfig?.allowedFunctionNames;
  if (names === undefined) return;
  // A set, so that many names against many declarations cost their sum, not their product.
  const declared = new Set(functions.map((fn) => fn.name));
  for (const [index, name] of names.entries()) {
    if (!declared.has(name)) fail(`toolConfig.functionCallingConfig.allowedFunctionNames.${index}`, `names no function declaration of the request: ${name}`);
  }
}

/** Where a request's model and method came from: its path and query. */
export interface GeminiTarget {
  readonly model: string;
  readonly stream: boolean;
  readonly sse: boolean;
}

/** The model named in the path: not empty, and no longer than any catalog id may be. */
export function checkModel(model: string): string {
  if (model === '') fail('model', 'must NOT have fewer than 1 characters');
  if (model.length > MAX_MODEL_ID_LENGTH && [...model].length > MAX_MODEL_ID_LENGTH) fail('model', `must NOT have more than ${MAX_MODEL_ID_LENGTH} characters`);
  return model;
}

/** A GenerateContentRequest body -> the request Freeway reads, or a 400 naming the first bad field. */
export function parseGeminiRequest(body: unknown, { model, stream, sse }: GeminiTarget, hostedTools: HostedTools = 'drop'): GeminiRequest {
  checkModel(model);
  const request = checkBody(body);
  const { functions, droppedTools } = readTools(request.tools, hostedTools);
  const toolConfig = request.toolConfig ?? undefined;
  checkAllowedNames(toolConfig, functions);
  const generationConfig = request.generationConfig ?? undefined;
  if (generationConfig?.candidateCount != null && generationConfig.candidateCount > 1) fail('generationConfig.candidateCount', 'must be 1: Freeway answers with one candidate');
  return { model, stream, sse, contents: request.contents, systemInstruction: request.systemInstruction ?? undefined, functions, droppedTools, toolConfig, generationConfig };
}
