import { assertSchemaDepth } from '../json-depth.ts';
import { INT32_MAX, INT32_MIN, MAX_MODEL_ID_LENGTH } from '../limits.ts';
import { array, fail, isObject, maxLength, nonEmptyString, object, oneOf, optionalBoolean, optionalNumber, phrase, string, type Fields } from '../validation.ts';
import type { Content, FunctionDeclaration, GeminiRequest, GenerationConfig, ToolConfig } from './types.ts';

/**
 * Checks a Gemini GenerateContentRequest with the shared field checks of
 * ../validation.ts: the message names the exact field
 * (`contents.2.parts.0.functionCall.name`). Unknown fields are ignored.
 */

const partFields = ['text', 'inlineData', 'fileData', 'functionCall', 'functionResponse'] as const;

/** Google's inlineData types a model of Freeway's reads: images (vision), PDFs (pdf) and text, which is sent as text. */
export const isImageType = (mimeType: string): boolean => /^image\/[\w.+-]+$/.test(mimeType);
export const isTextType = (mimeType: string): boolean => /^text\/[\w.+-]+$/.test(mimeType) || mimeType === 'application/json';
const readableTypes = 'image/*, application/pdf, text/* or application/json';

function checkInlineData(value: unknown, path: string): void {
  const data = object(value, path);
  const mimeType = string(data.mimeType, `${path}.mimeType`);
  if (!isImageType(mimeType) && mimeType !== 'application/pdf' && !isTextType(mimeType)) fail(`${path}.mimeType`, `must be ${readableTypes}; no model of Freeway's reads ${mimeType}`);
  string(data.data, `${path}.data`);
}

function checkFileData(value: unknown, path: string): void {
  const data = object(value, path);
  const uri = string(data.fileUri, `${path}.fileUri`);
  const protocol = URL.parse(uri)?.protocol;
  // Files uploaded to Google (gs://, the Files API) are Google's: Freeway keeps no files and passes http(s) URLs on.
  if (protocol !== 'http:' && protocol !== 'https:') fail(`${path}.fileUri`, 'must be an http(s) URL: Freeway keeps no files, so send the content inline (inlineData) or by URL');
  if (data.mimeType !== undefined) {
    const mimeType = string(data.mimeType, `${path}.mimeType`);
    if (!isImageType(mimeType) && mimeType !== 'application/pdf') fail(`${path}.mimeType`, `must be image/* or application/pdf; no model of Freeway's reads ${mimeType} from a URL`);
  }
}

function checkFunctionCall(value: unknown, path: string): void {
  const call = object(value, path);
  nonEmptyString(call.name, `${path}.name`);
  if (call.id !== undefined) string(call.id, `${path}.id`);
  if (call.args !== undefined && call.args !== null) {
    object(call.args, `${path}.args`);
    // Providers' SDKs serialize it again, recursively.
    assertSchemaDepth(call.args, `${path}.args`);
  }
}

function checkFunctionResponse(value: unknown, path: string): void {
  const response = object(value, path);
  nonEmptyString(response.name, `${path}.name`);
  if (response.id !== undefined) string(response.id, `${path}.id`);
  object(response.response, `${path}.response`);
  assertSchemaDepth(response.response, `${path}.response`);
}

/** Each kind of data but text: the one role whose turns may send it, and its check. */
const dataParts = {
  inlineData: ['user', checkInlineData],
  fileData: ['user', checkFileData],
  functionCall: ['model', checkFunctionCall],
  functionResponse: ['user', checkFunctionResponse],
} as const;

/** One part of a turn: exactly one kind of data, of a kind the turn's role may send. */
function checkPart(part: Fields, path: string, role: 'user' | 'model'): void {
  const present = partFields.filter((field) => part[field] !== undefined);
  if (present.length !== 1) fail(path, `must have exactly one of ${partFields.join(', ')}`);
  optionalBoolean(part.thought, `${path}.thought`);
  if (part.thoughtSignature !== undefined) string(part.thoughtSignature, `${path}.thoughtSignature`);
  const field = present[0] as (typeof partFields)[number];
  if (field === 'text') {
    string(part.text, `${path}.text`);
    return;
  }
  const [takenIn, check] = dataParts[field];
  if (role !== takenIn) fail(`${path}.${field}`, `is only taken in a turn of role ${takenIn}`);
  check(part[field], `${path}.${field}`);
}

function checkContent(value: unknown, path: string): Content {
  const content = object(value, path);
  const role = content.role === undefined ? 'user' : oneOf(content.role, `${path}.role`, ['user', 'model']);
  const parts = array(content.parts, `${path}.parts`);
  if (parts.length === 0) fail(`${path}.parts`, phrase.minItems(1));
  for (const [index, part] of parts.entries()) checkPart(object(part, `${path}.parts.${index}`), `${path}.parts.${index}`, role);
  return content as unknown as Content;
}

/** `contents`: one turn at least. */
export function checkContents(value: unknown): Content[] {
  const contents = array(value, 'contents');
  if (contents.length === 0) fail('contents', phrase.minItems(1));
  return contents.map((content, index) => checkContent(content, `contents.${index}`));
}

/** `systemInstruction`: text parts only; its role is ignored (Gemini CLI sends `user`). */
function checkSystemInstruction(value: unknown): Content | undefined {
  if (value === undefined || value === null) return undefined;
  const content = object(value, 'systemInstruction');
  const parts = array(content.parts, 'systemInstruction.parts');
  for (const [index, part] of parts.entries()) string(object(part, `systemInstruction.parts.${index}`).text, `systemInstruction.parts.${index}.text`);
  return content as unknown as Content;
}

/** Google's function names: letters, digits, `_`, `.`, `:` and `-`, starting with a letter or `_`. */
const functionNamePattern = /^[a-zA-Z_][a-zA-Z0-9_.:-]{0,127}$/;

function checkDeclaration(value: unknown, path: string): FunctionDeclaration {
  const declaration = object(value, path);
  const name = string(declaration.name, `${path}.name`);
  if (!functionNamePattern.test(name)) fail(`${path}.name`, 'must be 1 to 128 letters, digits, _, ., : or -, starting with a letter or _');
  if (declaration.description !== undefined && typeof declaration.description !== 'string') fail(`${path}.description`, phrase.type('string'));
  for (const field of ['parameters', 'parametersJsonSchema'] as const) {
    if (declaration[field] === undefined || declaration[field] === null) continue;
    object(declaration[field], `${path}.${field}`);
    assertSchemaDepth(declaration[field], `${path}.${field}`);
  }
  return declaration as unknown as FunctionDeclaration;
}

/** HOSTED_TOOLS: what becomes of tools Google runs itself. */
export type HostedTools = 'drop' | 'reject';

/**
 * `tools`: function declarations, and tools Google runs itself (`googleSearch`, `urlContext`,
 * `codeExecution`, ...), which no provider runs for Freeway: named by their field to be left
 * out, or refused with HOSTED_TOOLS=reject.
 */
function checkTools(value: unknown, hostedTools: HostedTools): { functions: FunctionDeclaration[]; droppedTools: string[] } {
  const functions: FunctionDeclaration[] = [];
  // A set: a tool may name many fields, each looked up once.
  const droppedTools = new Set<string>();
  if (value === undefined || value === null) return { functions, droppedTools: [] };
  for (const [index, item] of array(value, 'tools').entries()) {
    const tool = object(item, `tools.${index}`);
    for (const [field, inner] of Object.entries(tool)) {
      if (field !== 'functionDeclarations') {
        if (hostedTools === 'reject') fail(`tools.${index}.${field}`, 'is a tool Google runs itself, which Freeway does not run; only functionDeclarations are taken (HOSTED_TOOLS=reject)');
        droppedTools.add(field);
        continue;
      }
      for (const [at, declaration] of array(inner, `tools.${index}.functionDeclarations`).entries()) {
        functions.push(checkDeclaration(declaration, `tools.${index}.functionDeclarations.${at}`));
      }
    }
  }
  return { functions, droppedTools: [...droppedTools] };
}

function checkToolConfig(value: unknown, functions: readonly FunctionDeclaration[]): ToolConfig | undefined {
  if (value === undefined || value === null) return undefined;
  const config = object(value, 'toolConfig');
  if (config.functionCallingConfig === undefined || config.functionCallingConfig === null) return config as ToolConfig;
  const calling = object(config.functionCallingConfig, 'toolConfig.functionCallingConfig');
  if (calling.mode !== undefined) oneOf(calling.mode, 'toolConfig.functionCallingConfig.mode', ['AUTO', 'ANY', 'NONE', 'VALIDATED', 'MODE_UNSPECIFIED']);
  if (calling.allowedFunctionNames !== undefined) {
    const path = 'toolConfig.functionCallingConfig.allowedFunctionNames';
    // A set, so that many names against many declarations cost their sum, not their product.
    const declared = new Set(functions.map((fn) => fn.name));
    for (const [index, name] of array(calling.allowedFunctionNames, path).entries()) {
      const wanted = string(name, `${path}.${index}`);
      if (!declared.has(wanted)) fail(`${path}.${index}`, `names no function declaration of the request: ${wanted}`);
    }
  }
  return config as ToolConfig;
}

function checkThinkingConfig(value: unknown): void {
  if (value === undefined || value === null) return;
  const thinking = object(value, 'generationConfig.thinkingConfig');
  optionalBoolean(thinking.includeThoughts, 'generationConfig.thinkingConfig.includeThoughts');
  optionalNumber(thinking.thinkingBudget, 'generationConfig.thinkingConfig.thinkingBudget', { min: -1, max: INT32_MAX, integer: true });
  if (thinking.thinkingLevel !== undefined) {
    oneOf(thinking.thinkingLevel, 'generationConfig.thinkingConfig.thinkingLevel', ['THINKING_LEVEL_UNSPECIFIED', 'MINIMAL', 'LOW', 'MEDIUM', 'HIGH', 'XHIGH']);
  }
}

function checkGenerationConfig(value: unknown): GenerationConfig | undefined {
  if (value === undefined || value === null) return undefined;
  const config = object(value, 'generationConfig');
  const at = (field: string): string => `generationConfig.${field}`;
  const count = optionalNumber(config.candidateCount, at('candidateCount'), { min: 1, max: INT32_MAX, integer: true });
  if (count !== null && count > 1) fail(at('candidateCount'), 'must be 1: Freeway answers with one candidate');
  optionalNumber(config.temperature, at('temperature'), { min: 0, max: 2 });
  optionalNumber(config.topP, at('topP'), { min: 0, max: 1 });
  optionalNumber(config.topK, at('topK'), { min: 0, max: INT32_MAX, integer: true });
  optionalNumber(config.maxOutputTokens, at('maxOutputTokens'), { min: 1, max: INT32_MAX, integer: true });
  optionalNumber(config.seed, at('seed'), { min: INT32_MIN, max: INT32_MAX, integer: true });
  optionalNumber(config.presencePenalty, at('presencePenalty'), { min: -2, max: 2 });
  optionalNumber(config.frequencyPenalty, at('frequencyPenalty'), { min: -2, max: 2 });
  if (config.stopSequences !== undefined && config.stopSequences !== null) {
    array(config.stopSequences, at('stopSequences')).forEach((item, index) => string(item, at(`stopSequences.${index}`)));
  }
  if (config.responseMimeType !== undefined) oneOf(config.responseMimeType, at('responseMimeType'), ['text/plain', 'application/json']);
  for (const field of ['responseSchema', 'responseJsonSchema']) {
    if (config[field] === undefined || config[field] === null) continue;
    object(config[field], at(field));
    assertSchemaDepth(config[field], at(field));
  }
  checkThinkingConfig(config.thinkingConfig);
  return config as GenerationConfig;
}

/** Where a request's model and method came from: its path and query. */
export interface GeminiTarget {
  readonly model: string;
  readonly stream: boolean;
  readonly sse: boolean;
}

/** The model named in the path: not empty, and no longer than any catalog id may be. */
export function checkModel(model: string): string {
  nonEmptyString(model, 'model');
  return maxLength(model, 'model', MAX_MODEL_ID_LENGTH);
}

/** A GenerateContentRequest body -> the request Freeway reads, or a 400 naming the first bad field. */
export function parseGeminiRequest(body: unknown, { model, stream, sse }: GeminiTarget, hostedTools: HostedTools = 'drop'): GeminiRequest {
  checkModel(model);
  if (!isObject(body)) fail('body', phrase.type('object'));
  const contents = checkContents(body.contents);
  const systemInstruction = checkSystemInstruction(body.systemInstruction);
  const { functions, droppedTools } = checkTools(body.tools, hostedTools);
  const toolConfig = checkToolConfig(body.toolConfig, functions);
  const generationConfig = checkGenerationConfig(body.generationConfig);
  return { model, stream, sse, contents, systemInstruction, functions, droppedTools, toolConfig, generationConfig };
}
