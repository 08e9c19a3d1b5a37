import { Ajv, type ErrorObject } from 'ajv';
import type { ChatRequest } from './openai-types.ts';
import { invalidRequest } from './errors.ts';

const nullableNumber = { type: ['number', 'null'] };
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
const userPart = {
  type: 'object',
  required: ['type'],
  discriminator: { propertyName: 'type' },
  oneOf: [textPart, imagePart],
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
        content: { anyOf: [{ type: 'string' }, { type: 'array', items: userPart }] },
      },
      required: ['content'],
    },
    {
      properties: {
        role: { const: 'assistant' },
        content: { anyOf: [{ type: 'string' }, { type: 'null' }, { type: 'array', items: textPart }] },
        tool_calls: { type: 'array', items: toolCall },
      },
    },
    {
      properties: { role: { const: 'tool' }, content: textContent, tool_call_id: { type: 'string', minLength: 1 } },
      required: ['content', 'tool_call_id'],
    },
  ],
};

const tool = {
  type: 'object',
  required: ['type', 'function'],
  properties: {
    type: { const: 'function' },
    function: {
      type: 'object',
      required: ['name'],
      properties: {
        name: { type: 'string', pattern: '^[A-Za-z0-9_-]{1,64}$' },
        description: { type: 'string' },
        parameters: { type: 'object' },
        strict: { type: ['boolean', 'null'] },
      },
    },
  },
};

const chatRequestSchema = {
  type: 'object',
  required: ['model', 'messages'],
  properties: {
    model: { type: 'string', minLength: 1 },
    messages: { type: 'array', minItems: 1, items: message },
    stream: { type: ['boolean', 'null'] },
    stream_options: {
      type: ['object', 'null'],
      properties: { include_usage: { type: 'boolean' } },
    },
    temperature: { type: ['number', 'null'], minimum: 0, maximum: 2 },
    top_p: { type: ['number', 'null'], minimum: 0, maximum: 1 },
    max_tokens: { type: ['integer', 'null'], minimum: 1 },
    max_completion_tokens: { type: ['integer', 'null'], minimum: 1 },
    stop: {
      anyOf: [{ type: 'string' }, { type: 'null' }, { type: 'array', maxItems: 4, items: { type: 'string' } }],
    },
    seed: { type: ['integer', 'null'] },
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
    response_format: {
      type: 'object',
      required: ['type'],
      properties: {
        type: { enum: ['text', 'json_object', 'json_schema'] },
        json_schema: { type: 'object' },
      },
    },
    user: { type: 'string' },
    n: { type: ['integer', 'null'], minimum: 1 },
  },
};

const ajv = new Ajv({ allErrors: false, discriminator: true, strict: false, verbose: true });
const validateChatRequest = ajv.compile<ChatRequest>(chatRequestSchema);

function fieldOf(error: ErrorObject): string {
  const path = error.instancePath.slice(1).replaceAll('/', '.');
  const missing = error.keyword === 'required' ? (error.params as { missingProperty: string }).missingProperty : undefined;
  const tag = error.keyword === 'discriminator' ? (error.params as { tag: string }).tag : undefined;
  const leaf = missing ?? tag;
  if (leaf) return path ? `${path}.${leaf}` : leaf;
  return path || 'body';
}

function detailOf(error: ErrorObject): string {
  switch (error.keyword) {
    case 'required':
      return 'is required';
    case 'discriminator':
      return (error.params as { error: string }).error === 'mapping'
        ? `must be one of ${(error.parentSchema?.oneOf as Array<{ properties: { role?: { const?: string; enum?: string[] }; type?: { const?: string } } }>)
            .flatMap((branch) => branch.properties.role?.enum ?? [branch.properties.role?.const ?? branch.properties.type?.const])
            .join(', ')}`
        : 'must be a string';
    case 'enum':
      return `must be one of ${(error.params as { allowedValues: unknown[] }).allowedValues.join(', ')}`;
    case 'const':
      return `must be ${String((error.params as { allowedValue: unknown }).allowedValue)}`;
    case 'anyOf':
      return `must be ${(error.schema as Array<{ type?: string; const?: unknown; enum?: unknown[] }>)
        .map((branch) => branch.type ?? (branch.enum ? branch.enum.join(' or ') : String(branch.const)))
        .join(' or ')}`;
    default:
      return error.message ?? 'is invalid';
  }
}

/** The error deepest in the document; on a tie, the last (an anyOf summary comes after its branches). */
function mostSpecific(errors: readonly ErrorObject[]): ErrorObject | undefined {
  let best: ErrorObject | undefined;
  for (const error of errors) {
    if (!best || error.instancePath.length >= best.instancePath.length) best = error;
  }
  return best;
}

/** Checks a parsed body against the request schema; throws a 400 naming the first bad field. */
export function parseChatRequest(body: unknown): ChatRequest {
  if (!validateChatRequest(body)) {
    const error = mostSpecific(validateChatRequest.errors ?? []);
    throw invalidRequest(error ? `Validation failed: ${fieldOf(error)}: ${detailOf(error)}` : 'Validation failed: body: is invalid');
  }
  if (body.n != null && body.n > 1) throw invalidRequest('Validation failed: n: only n = 1 is supported');
  return body;
}
