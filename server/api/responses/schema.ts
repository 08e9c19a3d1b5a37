import { deepObject, modelId, nullableInteger, nullableNumber, ref, refused, union, type Schema } from '../schema-parts.ts';
import { DETAIL } from '../validation.ts';

/**
 * The Responses body Freeway accepts (OpenAI's, stateless), as JSON Schema.
 * Unknown fields are ignored. Checked by validate.ts, which adds what a schema
 * cannot say or depends on settings: hosted tools (HOSTED_TOOLS), namespaced
 * names that collide, a tool choice naming a function of a namespace.
 */

export const statelessHint = 'Freeway keeps no state; send the whole conversation in input instead';

/** A tool's or a namespace's name, as models take it. */
const toolName: Schema = { type: 'string', allOf: [{ pattern: '^[A-Za-z0-9_-]{1,64}$', [DETAIL]: 'must be 1 to 64 letters, digits, underscores or dashes' }] };

/** A part type `role` may not send, refused in words. */
const refusedPart = (type: string, detail: string): Schema => ({ properties: { type: { const: type, not: {}, [DETAIL]: detail } } });

const textPart = (type: string): Schema => ({ type: 'object', required: ['text'], properties: { type: { const: type }, text: { type: 'string' } } });

const imagePart: Schema = {
  type: 'object',
  allOf: [{ properties: { file_id: refused('Freeway keeps no state and has no uploaded files; send image_url as an http(s) or data URL') } }],
  required: ['image_url'],
  properties: {
    type: { const: 'input_image' },
    image_url: { type: 'string', allOf: [{ format: 'http-or-data-url', [DETAIL]: 'must be an http(s) URL or a data URL' }] },
    detail: { description: '`auto`, `low` or `high`.' },
  },
};

const filePart: Schema = {
  type: 'object',
  allOf: [
    {
      properties: {
        file_id: refused('Freeway keeps no files; send the document inline as file_data'),
        file_url: refused('is not supported; send the document inline as file_data'),
      },
    },
  ],
  required: ['file_data'],
  properties: {
    type: { const: 'input_file' },
    file_data: {
      type: 'string',
      description: 'A PDF as a base64 data URL (`data:application/pdf;base64,...`).',
      allOf: [
        { pattern: '^data:[^;,]+;base64,', [DETAIL]: 'must be a base64 data URL (data:application/pdf;base64,...)' },
        { pattern: '^data:application/pdf;base64,', [DETAIL]: 'only application/pdf documents are supported' },
      ],
    },
    filename: { type: 'string' },
  },
};

const noAudio: Schema = { type: 'object', ...refusedPart('input_audio', 'input_audio parts are not supported; send text, images or PDFs') };

/** A message's content: a string, or parts of the types its role may send. */
function content(role: 'user' | 'assistant' | 'system'): Schema {
  const parts: Schema[] = [ref('inputText'), ref('outputText')];
  if (role === 'user') parts.push(ref('imagePart'), ref('filePart'));
  else parts.push(refusedPart('input_image', 'images are only taken in user messages'), refusedPart('input_file', 'files are only taken in user messages'));
  if (role === 'assistant') parts.push({ required: ['refusal'], properties: { type: { const: 'refusal' }, refusal: { type: 'string' } } });
  parts.push(ref('noAudio'));
  return { type: ['string', 'array'], items: union('type', ...parts) };
}

const message: Schema = {
  type: 'object',
  required: ['role', 'content'],
  properties: { type: { enum: ['message', null] }, role: { type: 'string' }, content: { description: 'A string, or parts of the types the role may send.' } },
  discriminator: { propertyName: 'role' },
  oneOf: [
    { properties: { role: { const: 'user' }, content: content('user') } },
    { properties: { role: { const: 'assistant' }, content: content('assistant') } },
    { properties: { role: { enum: ['system', 'developer'] }, content: content('system') } },
  ],
};

/** Items with a `type` but `message`: calls, their outputs, reasoning sent back (dropped), and what needs state (refused). */
const typedItem: Schema = {
  type: 'object',
  required: ['type'],
  properties: { type: { type: 'string' } },
  discriminator: { propertyName: 'type' },
  [DETAIL]: '{value} items are not supported; send message, function_call and function_call_output items',
  oneOf: [
    {
      required: ['name', 'call_id', 'arguments'],
      properties: {
        type: { const: 'function_call' },
        name: { type: 'string' },
        namespace: { type: 'string' },
        call_id: { type: 'string' },
        arguments: { type: 'string', description: 'JSON text.' },
      },
    },
    {
      required: ['call_id', 'output'],
      properties: {
        type: { const: 'function_call_output' },
        call_id: { type: 'string' },
        output: {
          type: ['string', 'array'],
          items: {
            type: 'object',
            // Before `required`: a part of another type is refused for its type.
            allOf: [{ required: ['type'], properties: { type: { const: 'input_text', [DETAIL]: 'only input_text parts are supported in tool outputs' } } }],
            required: ['text'],
            properties: { type: { const: 'input_text' }, text: { type: 'string' } },
          },
        },
      },
    },
    { properties: { type: { const: 'reasoning' } }, description: "A model's earlier reasoning, sent back: dropped, as providers take no reasoning in their input." },
    { properties: { type: { const: 'item_reference' } }, not: {}, [DETAIL]: `${statelessHint} (with the AI SDK, set providerOptions.openai.store to false)` },
  ],
};

const inputItem: Schema = {
  type: 'object',
  if: { required: ['type'], properties: { type: { type: 'string', not: { const: 'message' } } } },
  then: ref('typedItem'),
  else: ref('message'),
};

const functionTool: Schema = {
  required: ['name'],
  properties: {
    name: toolName,
    description: { type: ['string', 'null'] },
    parameters: deepObject('The arguments, as a JSON Schema (at most 64 levels deep).', ['object', 'null']),
    strict: { type: ['boolean', 'null'] },
  },
};

const namespaceTool: Schema = {
  required: ['name', 'tools'],
  properties: {
    name: toolName,
    description: { type: ['string', 'null'] },
    tools: {
      type: 'array',
      items: {
        type: 'object',
        required: ['type'],
        properties: { type: { const: 'function', [DETAIL]: '{value} tools are not supported in a namespace; Freeway offers only function tools' } },
        allOf: [functionTool],
      },
    },
  },
};

/** `{"type": "..."}` is `type`: for the branches of a union on a type that may take other values. */
const ofType = (type: string): Schema => ({ required: ['type'], properties: { type: { const: type } } });

export const responsesSchema: Schema = {
  type: 'object',
  // Before `required`: a request that needs state is refused for that, whatever else it lacks.
  allOf: [
    {
      properties: {
        previous_response_id: refused(statelessHint),
        conversation: refused(statelessHint),
        background: { not: { const: true }, [DETAIL]: 'Freeway keeps no state, so it cannot run a response in the background' },
        prompt: refused('Freeway keeps no state, so it has no stored prompts; send instructions and input instead'),
      },
    },
  ],
  required: ['model', 'input'],
  $defs: { inputText: textPart('input_text'), outputText: textPart('output_text'), imagePart, filePart, noAudio, message, typedItem },
  properties: {
    model: modelId,
    input: { type: ['string', 'array'], minItems: 1, items: inputItem, description: 'A string (one user message) or the whole conversation as items.' },
    instructions: { type: ['string', 'null'] },
    tools: {
      type: ['array', 'null'],
      items: {
        type: 'object',
        required: ['type'],
        properties: { type: { type: 'string' } },
        allOf: [
          { if: ofType('function'), then: functionTool },
          { if: ofType('namespace'), then: namespaceTool },
        ],
        description: "function and namespace tools; OpenAI's hosted tools are left out (HOSTED_TOOLS=drop) or refused (reject).",
      },
    },
    tool_choice: {
      anyOf: [
        { enum: ['auto', 'none', 'required', null] },
        {
          type: 'object',
          required: ['type'],
          properties: { type: { type: 'string' }, name: { type: 'string' }, namespace: { type: 'string' } },
          if: ofType('function'),
          then: { required: ['name'], properties: { name: { type: 'string' } } },
        },
      ],
      [DETAIL]: 'must be auto, none, required or {"type": "function", "name": ...}',
    },
    text: {
      type: ['object', 'null'],
      properties: {
        format: {
          type: ['object', 'null'],
          required: ['type'],
          properties: { type: { type: 'string' } },
          discriminator: { propertyName: 'type' },
          oneOf: [
            { properties: { type: { const: 'text' } } },
            { properties: { type: { const: 'json_object' } } },
            {
              required: ['schema', 'name'],
              properties: {
                type: { const: 'json_schema' },
                schema: deepObject("The answer's JSON Schema (at most 64 levels deep)."),
                name: { type: 'string' },
                description: { type: ['string', 'null'] },
                strict: { type: ['boolean', 'null'] },
              },
            },
          ],
        },
      },
    },
    max_output_tokens: nullableInteger(1),
    reasoning: { type: ['object', 'null'], properties: { effort: { enum: ['none', 'minimal', 'low', 'medium', 'high', 'xhigh', 'max', null] } } },
    temperature: nullableNumber(0, 2),
    top_p: nullableNumber(0, 1),
    parallel_tool_calls: { type: ['boolean', 'null'] },
    metadata: {
      type: ['object', 'null'],
      maxProperties: 16,
      propertyNames: { maxLength: 64, [DETAIL]: 'keys must be at most 64 characters' },
      additionalProperties: { type: 'string', maxLength: 512 },
    },
    stream: { type: ['boolean', 'null'] },
    safety_identifier: { type: ['string', 'null'], description: 'The end-user id passed to providers that take one.' },
    user: { type: ['string', 'null'], description: 'Deprecated for safety_identifier.' },
  },
};
