import { INT32_MAX, INT32_MIN, MAX_MODEL_ID_LENGTH } from '../limits.ts';

/**
 * The JSON schema of a chat-completions request body. Changing it means
 * regenerating the compiled validator: `npm run generate` (a test checks).
 */
const nullableNumber = { type: ['number', 'null'] };
const int32Max = INT32_MAX;
const int32Min = INT32_MIN;
const textPart = {
  type: 'object',
  required: ['type', 'text'],
  properties: { type: { const: 'text' }, text: { type: 'string' } },
};
const imagePart = {
  type: 'object',
  required: ['type', 'image_url'],
  properties: {
    type: { const: 'image_url' },
    image_url: {
      type: 'object',
      required: ['url'],
      properties: { url: { type: 'string', minLength: 1 }, detail: { type: 'string' } },
    },
  },
};
/** A document, inline: `file_data` is a data URL. `file_id` (an uploaded file) is refused in request.ts, with a message that says why. */
const filePart = {
  type: 'object',
  required: ['type', 'file'],
  properties: {
    type: { const: 'file' },
    file: {
      type: 'object',
      properties: { file_data: { type: 'string', minLength: 1 }, file_id: { type: 'string' }, filename: { type: 'string' } },
    },
  },
};
const userPart = {
  type: 'object',
  required: ['type'],
  discriminator: { propertyName: 'type' },
  oneOf: [textPart, imagePart, filePart],
};
const textContent = { anyOf: [{ type: 'string' }, { type: 'array', items: textPart }] };
const toolCall = {
  type: 'object',
  required: ['id', 'type', 'function'],
  properties: {
    id: { type: 'string', minLength: 1 },
    type: { const: 'function' },
    function: {
      type: 'object',
      required: ['name', 'arguments'],
      properties: { name: { type: 'string', minLength: 1 }, arguments: { type: 'string' } },
    },
  },
};

const message = {
  type: 'object',
  required: ['role'],
  discriminator: { propertyName: 'role' },
  oneOf: [
    { properties: { role: { enum: ['system', 'developer'] }, content: textContent }, required: ['content'] },
    {
      properties: {
        role: { const: 'user' },
        content: { anyOf: [{ type: 'string' }, { type: 'array', minItems: 1, items: userPart }] },
      },
      required: ['content'],
    },
    {
      properties: {
        role: { const: 'assistant' },
        content: { anyOf: [{ type: 'string' }, { type: 'null' }, { type: 'array', items: textPart }] },
        tool_calls: { type: 'array', items: toolCall },
        // Legacy function calling.
        function_call: {
          type: ['object', 'null'],
          required: ['name', 'arguments'],
          properties: { name: { type: 'string', minLength: 1 }, arguments: { type: 'string' } },
        },
      },
    },
    {
      properties: { role: { const: 'tool' }, content: textContent, tool_call_id: { type: 'string', minLength: 1 } },
      required: ['content', 'tool_call_id'],
    },
    {
      // Legacy function calling: the result of the function `name`.
      properties: { role: { const: 'function' }, name: { type: 'string', minLength: 1 }, content: { type: ['string', 'null'] } },
      required: ['name', 'content'],
    },
  ],
};

const functionDefinition = {
  type: 'object',
  required: ['name'],
  properties: {
    name: { type: 'string', pattern: '^[A-Za-z0-9_-]{1,64}$' },
    description: { type: 'string' },
    parameters: { type: 'object' },
    strict: { type: ['boolean', 'null'] },
  },
};
const tool = {
  type: 'object',
  required: ['type', 'function'],
  properties: {
    type: { const: 'function' },
    function: functionDefinition,
  },
};

export const chatRequestSchema = {
  type: 'object',
  required: ['model', 'messages'],
  properties: {
    model: { type: 'string', minLength: 1, maxLength: MAX_MODEL_ID_LENGTH },
    messages: { type: 'array', minItems: 1, items: message },
    stream: { type: ['boolean', 'null'] },
    stream_options: {
      type: ['object', 'null'],
      properties: { include_usage: { type: 'boolean' } },
    },
    temperature: { type: ['number', 'null'], minimum: 0, maximum: 2 },
    top_p: { type: ['number', 'null'], minimum: 0, maximum: 1 },
    max_tokens: { type: ['integer', 'null'], minimum: 1, maximum: int32Max },
    max_completion_tokens: { type: ['integer', 'null'], minimum: 1, maximum: int32Max },
    stop: {
      anyOf: [{ type: 'string' }, { type: 'null' }, { type: 'array', maxItems: 4, items: { type: 'string' } }],
    },
    seed: { type: ['integer', 'null'], minimum: int32Min, maximum: int32Max },
    presence_penalty: { ...nullableNumber, minimum: -2, maximum: 2 },
    frequency_penalty: { ...nullableNumber, minimum: -2, maximum: 2 },
    tools: { type: 'array', items: tool },
    tool_choice: {
      anyOf: [
        { enum: ['auto', 'none', 'required'] },
        {
          type: 'object',
          required: ['type', 'function'],
          properties: {
            type: { const: 'function' },
            function: { type: 'object', required: ['name'], properties: { name: { type: 'string' } } },
          },
        },
      ],
    },
    parallel_tool_calls: { type: ['boolean', 'null'] },
    // Legacy function calling, answered in the same form.
    functions: { type: 'array', minItems: 1, items: functionDefinition },
    function_call: {
      anyOf: [{ enum: ['none', 'auto'] }, { type: 'object', required: ['name'], properties: { name: { type: 'string' } } }],
    },
    logprobs: { type: ['boolean', 'null'] },
    top_logprobs: { type: ['integer', 'null'], minimum: 0, maximum: 20 },
    response_format: {
      type: 'object',
      required: ['type'],
      properties: {
        type: { enum: ['text', 'json_object', 'json_schema'] },
        json_schema: { type: 'object' },
      },
    },
    user: { type: 'string' },
    n: { type: ['integer', 'null'], minimum: 1, maximum: int32Max },
  },
};

/** Ajv options the validator is generated with; `verbose` keeps the schema in errors for the messages. */
export const ajvOptions = { allErrors: false, discriminator: true, strict: false, verbose: true, code: { source: true, esm: true } } as const;
