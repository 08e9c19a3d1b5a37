import { deepObject, httpUrl, nullableInteger, nullableNumber, ref, seed, type Schema } from '../schema-parts.ts';
import { DETAIL } from '../validation.ts';

/**
 * The Gemini bodies Freeway accepts, as JSON Schema: GenerateContentRequest
 * (https://ai.google.dev/api/generate-content) and the embedding requests
 * (https://ai.google.dev/api/embeddings), read 2026-11-27. Fields Freeway does not
 * read (`safetySettings`, `cachedContent`, `labels`, ...) are accepted and ignored.
 * Checked by validate.ts and embed.ts, which add what a schema cannot say (tools
 * Google runs itself, allowed names that name a declaration).
 */

/** Google's inlineData types a model of Freeway's reads: images (vision), PDFs (pdf) and text, which is sent as text. */
export const imageType = '^image/[\\w.+-]+$';
export const textType = '^(text/[\\w.+-]+|application/json)$';

const partFields = ['text', 'inlineData', 'fileData', 'functionCall', 'functionResponse'] as const;

/** With `x-detail`: a field a part of this turn's role may not carry. */
const takenOnlyIn = (role: string): Schema => ({ not: {}, [DETAIL]: `is only taken in a turn of role ${role}` });

const inlineData: Schema = {
  type: 'object',
  required: ['mimeType', 'data'],
  properties: {
    mimeType: {
      type: 'string',
      allOf: [{ pattern: `${imageType}|^application/pdf$|${textType}`, [DETAIL]: "must be image/*, application/pdf, text/* or application/json; no model of Freeway's reads {value}" }],
    },
    data: { type: 'string', description: 'Base64.' },
  },
};

const fileData: Schema = {
  type: 'object',
  required: ['fileUri'],
  properties: {
    // Files uploaded to Google (gs://, the Files API) are Google's: Freeway keeps no files and passes http(s) URLs on.
    fileUri: httpUrl('must be an http(s) URL: Freeway keeps no files, so send the content inline (inlineData) or by URL'),
    mimeType: { type: 'string', allOf: [{ pattern: `${imageType}|^application/pdf$`, [DETAIL]: "must be image/* or application/pdf; no model of Freeway's reads {value} from a URL" }] },
  },
};

const functionCall: Schema = {
  type: 'object',
  required: ['name'],
  properties: { name: { type: 'string', minLength: 1 }, id: { type: 'string' }, args: deepObject('The arguments of the call.', ['object', 'null']) },
};

const functionResponse: Schema = {
  type: 'object',
  required: ['name', 'response'],
  properties: { name: { type: 'string', minLength: 1 }, id: { type: 'string' }, response: deepObject('What the function returned.') },
};

/** One part of a turn of `role`: exactly one kind of data, of a kind that role may send. */
function part(role: 'user' | 'model'): Schema {
  const user = role === 'user';
  return {
    type: 'object',
    allOf: [{ oneOf: partFields.map((field) => ({ required: [field], properties: { [field]: true } })), [DETAIL]: `must have exactly one of ${partFields.join(', ')}` }],
    properties: {
      thought: { type: ['boolean', 'null'] },
      thoughtSignature: { type: 'string' },
      text: { type: 'string' },
      inlineData: user ? ref('inlineData') : takenOnlyIn('user'),
      fileData: user ? ref('fileData') : takenOnlyIn('user'),
      functionCall: user ? takenOnlyIn('model') : ref('functionCall'),
      functionResponse: user ? ref('functionResponse') : takenOnlyIn('user'),
    },
  };
}

const content: Schema = {
  type: 'object',
  required: ['parts'],
  if: { required: ['role'], properties: { role: { const: 'model' } } },
  then: { properties: { parts: { type: 'array', items: ref('modelPart') } } },
  else: { properties: { parts: { type: 'array', items: ref('userPart') } } },
  properties: {
    role: { enum: ['user', 'model'], description: '`user` when absent.' },
    parts: { type: 'array', minItems: 1 },
  },
};

const declaration: Schema = {
  type: 'object',
  required: ['name'],
  properties: {
    name: { type: 'string', allOf: [{ pattern: '^[a-zA-Z_][a-zA-Z0-9_.:-]{0,127}$', [DETAIL]: 'must be 1 to 128 letters, digits, _, ., : or -, starting with a letter or _' }] },
    description: { type: 'string' },
    parameters: deepObject("The arguments, in Google's OpenAPI subset (at most 64 levels deep).", ['object', 'null']),
    parametersJsonSchema: deepObject('The arguments, as a JSON Schema (at most 64 levels deep); wins over parameters.', ['object', 'null']),
  },
};

const generationConfig: Schema = {
  type: ['object', 'null'],
  properties: {
    candidateCount: { ...nullableInteger(1), description: 'Only 1: Freeway answers with one candidate.' },
    temperature: nullableNumber(0, 2),
    topP: nullableNumber(0, 1),
    topK: nullableInteger(0),
    maxOutputTokens: nullableInteger(1),
    seed,
    presencePenalty: nullableNumber(-2, 2),
    frequencyPenalty: nullableNumber(-2, 2),
    stopSequences: { type: ['array', 'null'], items: { type: 'string' } },
    responseMimeType: { enum: ['text/plain', 'application/json'] },
    responseSchema: deepObject("The answer's schema, in Google's OpenAPI subset (at most 64 levels deep).", ['object', 'null']),
    responseJsonSchema: deepObject("The answer's JSON Schema (at most 64 levels deep).", ['object', 'null']),
    thinkingConfig: {
      type: ['object', 'null'],
      properties: {
        includeThoughts: { type: ['boolean', 'null'] },
        thinkingBudget: nullableInteger(-1),
        thinkingLevel: { enum: ['THINKING_LEVEL_UNSPECIFIED', 'MINIMAL', 'LOW', 'MEDIUM', 'HIGH', 'XHIGH'] },
      },
    },
  },
};

export const generateContentSchema: Schema = {
  type: 'object',
  required: ['contents'],
  $defs: { inlineData, fileData, functionCall, functionResponse, userPart: part('user'), modelPart: part('model'), content },
  properties: {
    contents: { type: 'array', minItems: 1, items: ref('content'), description: 'The conversation, one turn at least.' },
    systemInstruction: {
      type: ['object', 'null'],
      required: ['parts'],
      properties: { role: { type: 'string', description: 'Ignored.' }, parts: { type: 'array', items: { type: 'object', required: ['text'], properties: { text: { type: 'string' } } } } },
    },
    tools: {
      type: ['array', 'null'],
      items: {
        type: 'object',
        properties: { functionDeclarations: { type: 'array', items: declaration } },
        description: "functionDeclarations; tools Google runs itself (googleSearch, ...) are left out (HOSTED_TOOLS=drop) or refused (reject).",
      },
    },
    toolConfig: {
      type: ['object', 'null'],
      properties: {
        functionCallingConfig: {
          type: ['object', 'null'],
          properties: {
            mode: { enum: ['AUTO', 'ANY', 'NONE', 'VALIDATED', 'MODE_UNSPECIFIED'] },
            allowedFunctionNames: { type: 'array', items: { type: 'string' } },
          },
        },
      },
    },
    generationConfig,
  },
};

/** countTokens: `contents`, or a whole `generateContentRequest` (which wins). */
const { $defs: generateContentDefs, ...generateContentRequest } = generateContentSchema;
export const countTokensSchema: Schema = {
  type: 'object',
  $defs: generateContentDefs,
  properties: { contents: (generateContentSchema.properties as Record<string, Schema>).contents, generateContentRequest },
};

const taskTypes = ['TASK_TYPE_UNSPECIFIED', 'RETRIEVAL_QUERY', 'RETRIEVAL_DOCUMENT', 'SEMANTIC_SIMILARITY', 'CLASSIFICATION', 'CLUSTERING', 'QUESTION_ANSWERING', 'FACT_VERIFICATION', 'CODE_RETRIEVAL_QUERY'];

/** One EmbedContentRequest: its text parts are one input. */
export const embedContentSchema: Schema = {
  type: 'object',
  required: ['content'],
  properties: {
    content: {
      type: 'object',
      required: ['parts'],
      properties: { parts: { type: 'array', items: { type: 'object', required: ['text'], properties: { text: { type: 'string' } } } } },
    },
    model: { type: 'string', description: 'In a batch: the model of the path, models/{model}.' },
    outputDimensionality: nullableInteger(1),
    taskType: { enum: taskTypes },
    title: { type: 'string', description: 'Ignored.' },
  },
};

export const batchEmbedContentsSchema: Schema = {
  type: 'object',
  required: ['requests'],
  properties: { requests: { type: 'array', minItems: 1, items: embedContentSchema, description: 'At most EMBEDDINGS_MAX_INPUTS requests.' } },
};
