import { deepObject, modelId, nullableInteger, nullableNumber, ref, seed, union, type Schema } from '../schema-parts.ts';

/**
 * The chat-completions body Freeway accepts, as JSON Schema: OpenAI's fields
 * that Freeway maps (docs/apis.md). Unknown fields are ignored. Checked by
 * validate.ts, which adds what a schema cannot say (schema depth, `n`).
 */

const textPart: Schema = {
  type: 'object',
  required: ['type', 'text'],
  properties: { type: { const: 'text' }, text: { type: 'string' } },
};

/** A string, or text parts. */
const textContent: Schema = { type: ['string', 'array'], items: ref('textPart') };

const userPart = union(
  'type',
  { properties: { type: { const: 'text' }, text: { type: 'string' } }, required: ['text'] },
  {
    properties: {
      type: { const: 'image_url' },
      image_url: {
        type: 'object',
        required: ['url'],
        properties: { url: { type: 'string', minLength: 1, description: 'An http(s) URL or a data URL.' }, detail: { type: 'string' } },
      },
    },
    required: ['image_url'],
  },
  {
    properties: {
      type: { const: 'file' },
      file: {
        type: 'object',
        properties: {
          file_data: { type: 'string', minLength: 1, description: 'A PDF as a base64 data URL (`data:application/pdf;base64,...`).' },
          file_id: { type: 'string', description: 'Refused: Freeway keeps no files.' },
          filename: { type: 'string' },
        },
      },
    },
    required: ['file'],
  },
);

/** `{name, arguments}`, as a tool call's `function` and the legacy `function_call` carry. */
const call: Schema = {
  type: 'object',
  required: ['name', 'arguments'],
  properties: { name: { type: 'string', minLength: 1 }, arguments: { type: 'string', description: 'JSON text.' } },
};

const toolCall: Schema = {
  type: 'object',
  required: ['id', 'type', 'function'],
  properties: { id: { type: 'string', minLength: 1 }, type: { const: 'function' }, function: call },
};

const message = union(
  'role',
  { properties: { role: { enum: ['system', 'developer'] }, content: textContent }, required: ['content'] },
  { properties: { role: { const: 'user' }, content: { type: ['string', 'array'], minItems: 1, items: ref('userPart') } }, required: ['content'] },
  {
    properties: {
      role: { const: 'assistant' },
      content: { type: ['string', 'null', 'array'], items: ref('textPart') },
      tool_calls: { type: 'array', items: ref('toolCall') },
      function_call: { ...call, type: ['object', 'null'] },
    },
  },
  {
    properties: { role: { const: 'tool' }, content: textContent, tool_call_id: { type: 'string', minLength: 1 } },
    required: ['content', 'tool_call_id'],
  },
  {
    properties: { role: { const: 'function' }, name: { type: 'string', minLength: 1 }, content: { type: ['string', 'null'] } },
    required: ['name', 'content'],
  },
);

const functionDefinition: Schema = {
  type: 'object',
  required: ['name'],
  properties: {
    name: { type: 'string', pattern: '^[A-Za-z0-9_-]{1,64}$' },
    description: { type: 'string' },
    parameters: deepObject('The arguments, as a JSON Schema (at most 64 levels deep).'),
    strict: { type: ['boolean', 'null'] },
  },
};

export const chatSchema: Schema = {
  type: 'object',
  required: ['model', 'messages'],
  $defs: { textPart, userPart, toolCall, message, functionDefinition },
  properties: {
    model: modelId,
    messages: { type: 'array', minItems: 1, items: ref('message'), description: 'The conversation; roles system, developer, user, assistant, tool and the legacy function.' },
    stream: { type: ['boolean', 'null'], description: 'Answer with server-sent events.' },
    stream_options: { type: ['object', 'null'], properties: { include_usage: { type: 'boolean' } } },
    temperature: nullableNumber(0, 2),
    top_p: nullableNumber(0, 1),
    max_tokens: nullableInteger(1),
    max_completion_tokens: nullableInteger(1),
    stop: { type: ['string', 'null', 'array'], maxItems: 4, items: { type: 'string' } },
    seed,
    presence_penalty: nullableNumber(-2, 2),
    frequency_penalty: nullableNumber(-2, 2),
    tools: { type: 'array', items: { type: 'object', required: ['type', 'function'], properties: { type: { const: 'function' }, function: ref('functionDefinition') } } },
    tool_choice: {
      anyOf: [
        { enum: ['auto', 'none', 'required'] },
        {
          type: 'object',
          required: ['type', 'function'],
          properties: { type: { const: 'function' }, function: { type: 'object', required: ['name'], properties: { name: { type: 'string' } } } },
        },
      ],
    },
    parallel_tool_calls: { type: ['boolean', 'null'] },
    functions: { type: 'array', minItems: 1, items: ref('functionDefinition'), description: 'Legacy function calling; not with tools.' },
    function_call: { anyOf: [{ enum: ['none', 'auto'] }, { type: 'object', required: ['name'], properties: { name: { type: 'string' } } }] },
    logprobs: { type: ['boolean', 'null'] },
    top_logprobs: nullableInteger(0, undefined, 20),
    response_format: {
      type: 'object',
      required: ['type'],
      properties: {
        type: { enum: ['text', 'json_object', 'json_schema'] },
        json_schema: deepObject('`{name, schema, strict}`: the answer\'s JSON Schema (at most 64 levels deep).'),
      },
    },
    user: { type: 'string' },
    n: { ...nullableInteger(1), description: 'Only 1: Freeway answers with one choice.' },
  },
};
