import { deepObject, httpUrl, modelId, nullableInteger, nullableNumber, ref, union, type Schema } from '../schema-parts.ts';
import { DETAIL } from '../validation.ts';

/**
 * The Messages API body Freeway accepts (Anthropic's, https://docs.anthropic.com/en/api/messages),
 * as JSON Schema; `count_tokens` takes the same without `max_tokens`. Fields Freeway does not
 * read (`cache_control`, `citations`, `container`, ...) are accepted and ignored. Checked by
 * validate.ts, which adds what a schema cannot say (server tools, a tool choice naming a tool).
 */

const noFiles = 'Freeway keeps no files: send the content inline (base64 or url)';

/** A source of `type: file`: a file uploaded to Anthropic, which Freeway cannot read. */
const fileSource: Schema = { properties: { type: { const: 'file' } }, not: {}, [DETAIL]: noFiles };

const urlSource: Schema = { required: ['url'], properties: { type: { const: 'url' }, url: httpUrl() } };

const textBlock: Schema = { type: 'object', required: ['text'], properties: { type: { const: 'text' }, text: { type: 'string' } } };

/** A discriminated union of blocks on their `type`. */
const blocks = (...branches: Schema[]): Schema => union('type', ...branches);

const imageBlock: Schema = {
  type: 'object',
  required: ['source'],
  properties: {
    type: { const: 'image' },
    source: union(
      'type',
      {
        required: ['media_type', 'data'],
        properties: { type: { const: 'base64' }, media_type: { enum: ['image/jpeg', 'image/png', 'image/gif', 'image/webp'] }, data: { type: 'string' } },
      },
      urlSource,
      fileSource,
    ),
  },
};

const documentBlock: Schema = {
  type: 'object',
  required: ['source'],
  properties: {
    type: { const: 'document' },
    source: union(
      'type',
      { required: ['media_type', 'data'], properties: { type: { const: 'base64' }, media_type: { enum: ['application/pdf'] }, data: { type: 'string' } } },
      urlSource,
      { required: ['data'], properties: { type: { const: 'text' }, data: { type: 'string' } } },
      { required: ['content'], properties: { type: { const: 'content' }, content: { type: ['string', 'array'], items: blocks(ref('textBlock'), ref('imageBlock')) } } },
      fileSource,
    ),
  },
};

const toolResultBlock: Schema = {
  required: ['tool_use_id'],
  properties: {
    type: { const: 'tool_result' },
    tool_use_id: { type: 'string' },
    content: { type: ['string', 'array'], items: blocks(ref('textBlock'), ref('imageBlock'), ref('documentBlock')) },
    is_error: { type: 'boolean' },
  },
};

const assistantBlock = blocks(
  ref('textBlock'),
  {
    required: ['id', 'name', 'input'],
    properties: { type: { const: 'tool_use' }, id: { type: 'string' }, name: { type: 'string' }, input: deepObject('The arguments of the call.') },
  },
  { required: ['thinking'], properties: { type: { const: 'thinking' }, thinking: { type: 'string' }, signature: { type: 'string' } } },
  { required: ['data'], properties: { type: { const: 'redacted_thinking' }, data: { type: 'string' } } },
);

const textOnly: Schema = { type: 'object', required: ['type', 'text'], properties: { type: { enum: ['text'] }, text: { type: 'string' } } };

const message = union(
  'role',
  { required: ['content'], properties: { role: { const: 'user' }, content: { type: ['string', 'array'], items: blocks(ref('textBlock'), ref('imageBlock'), ref('documentBlock'), toolResultBlock) } } },
  { required: ['content'], properties: { role: { const: 'assistant' }, content: { type: ['string', 'array'], items: assistantBlock } } },
  { required: ['content'], properties: { role: { const: 'system' }, content: { type: ['string', 'array'], items: ref('textOnly') } } },
);

/** A tool without a `type` (or `custom`) is the caller's; any other is one of Anthropic's server tools, refused after the schema. */
const tool: Schema = {
  type: 'object',
  if: { properties: { type: { enum: ['custom', null] } } },
  then: {
    required: ['name', 'input_schema'],
    properties: {
      name: { type: 'string', allOf: [{ pattern: '^[a-zA-Z0-9_-]{1,128}$', [DETAIL]: 'must be 1 to 128 letters, digits, _ or -' }] },
      description: { type: 'string' },
      input_schema: deepObject('The input, as a JSON Schema (at most 64 levels deep).'),
    },
  },
};

function messagesBody(counting: boolean): Schema {
  return {
    type: 'object',
    $defs: { message, textBlock, imageBlock, documentBlock, textOnly, tool },
    required: counting ? ['model', 'messages'] : ['model', 'max_tokens', 'messages'],
    properties: {
      model: { ...modelId, description: 'A model name (`claude-*` names are mapped by ANTHROPIC_MODEL_MAP), an alias or a pinned `{provider}/{modelId}`.' },
      ...(counting ? {} : { max_tokens: nullableInteger(1, 'The most tokens to generate; lowered to what the model can give.') }),
      messages: { type: 'array', minItems: 1, items: ref('message') },
      system: { type: ['string', 'array', 'null'], items: ref('textOnly') },
      temperature: nullableNumber(0, 1),
      top_p: nullableNumber(0, 1),
      top_k: nullableInteger(0),
      stop_sequences: { type: ['array', 'null'], items: { type: 'string' } },
      metadata: { type: ['object', 'null'], properties: { user_id: { type: ['string', 'null'] } } },
      stream: { type: ['boolean', 'null'] },
      tools: { type: ['array', 'null'], items: ref('tool') },
      tool_choice: {
        type: ['object', 'null'],
        required: ['type'],
        properties: { type: { enum: ['auto', 'any', 'tool', 'none'] }, name: { type: 'string' }, disable_parallel_tool_use: { type: 'boolean' } },
        if: { required: ['type'], properties: { type: { const: 'tool' } } },
        then: { required: ['name'], properties: { name: { type: 'string' } } },
      },
      thinking: {
        type: ['object', 'null'],
        required: ['type'],
        properties: {
          type: { enum: ['enabled', 'disabled', 'adaptive', 'between_tools'] },
          display: { enum: ['summarized', 'omitted', null] },
          budget_tokens: { description: 'With `enabled`: an integer, at least 1.' },
        },
        if: { required: ['type'], properties: { type: { const: 'enabled' } } },
        then: { required: ['budget_tokens'], properties: { budget_tokens: { type: 'integer', minimum: 1 } } },
      },
      output_config: {
        type: ['object', 'null'],
        properties: {
          effort: { enum: ['low', 'medium', 'high', 'xhigh', 'max', null] },
          format: {
            type: ['object', 'null'],
            required: ['type', 'schema'],
            properties: { type: { enum: ['json_schema'] }, schema: deepObject('The answer\'s JSON Schema (at most 64 levels deep).') },
          },
        },
      },
    },
  };
}

export const messagesSchema = messagesBody(false);
/** `POST /v1/messages/count_tokens`: a Messages body without `max_tokens`. */
export const countTokensSchema = messagesBody(true);
