/**
 * Anthropic's Messages API shapes as zod schemas, each tied at compile time to
 * the official SDK's type (`satisfies z.ZodType<SdkType>`), so a field the SDK
 * does not declare, or a wrong type, fails to typecheck; at run time the
 * objects are strict, so an undeclared key in what Freeway sends fails too.
 * Plus the documented order of a stream's events.
 */
import { expect } from 'chai';
import { z } from 'zod';
import { parseSse } from './sse.ts';
import type {
  Message,
  MessageDeltaUsage,
  RawContentBlockDeltaEvent,
  RawContentBlockStartEvent,
  RawContentBlockStopEvent,
  RawMessageDeltaEvent,
  RawMessageStartEvent,
  RawMessageStopEvent,
  TextBlock,
  ThinkingBlock,
  ToolUseBlock,
  Usage,
} from '@anthropic-ai/sdk/resources/messages/messages';
import type { ErrorResponse } from '@anthropic-ai/sdk/resources/shared';

const count = z.number().int().nonnegative();

export const usageSchema = z.strictObject({
  input_tokens: count,
  output_tokens: count,
  cache_creation_input_tokens: count.nullable(),
  cache_read_input_tokens: count.nullable(),
  cache_creation: z.null(),
  output_tokens_details: z.strictObject({ thinking_tokens: count }).nullable(),
  server_tool_use: z.null(),
  service_tier: z.null(),
  inference_geo: z.null(),
  speed: z.null(),
}) satisfies z.ZodType<Usage>;

const textBlock = z.strictObject({ type: z.literal('text'), text: z.string(), citations: z.null() }) satisfies z.ZodType<TextBlock>;
const thinkingBlock = z.strictObject({ type: z.literal('thinking'), thinking: z.string(), signature: z.string() }) satisfies z.ZodType<ThinkingBlock>;
const toolUseBlock = z.strictObject({
  type: z.literal('tool_use'),
  id: z.string().regex(/^toolu_/),
  name: z.string().min(1),
  input: z.record(z.string(), z.unknown()),
  caller: z.strictObject({ type: z.literal('direct') }),
}) satisfies z.ZodType<ToolUseBlock>;
const contentBlock = z.discriminatedUnion('type', [textBlock, thinkingBlock, toolUseBlock]);

const stopReason = z.enum(['end_turn', 'max_tokens', 'stop_sequence', 'tool_use', 'refusal']);

const messageFields = {
  id: z.string().regex(/^msg_[0-9a-f]{24}$/),
  type: z.literal('message'),
  role: z.literal('assistant'),
  model: z.string().min(1),
  stop_sequence: z.string().nullable(),
  stop_details: z.null(),
  container: z.null(),
  diagnostics: z.null(),
  usage: usageSchema,
};

export const messageSchema = z.strictObject({ ...messageFields, content: z.array(contentBlock), stop_reason: stopReason }) satisfies z.ZodType<Message>;

const messageStart = z.strictObject({
  type: z.literal('message_start'),
  message: z.strictObject({ ...messageFields, content: z.tuple([]), stop_reason: z.null() }),
}) satisfies z.ZodType<RawMessageStartEvent>;

const index = z.number().int().nonnegative();

const blockStart = z.strictObject({
  type: z.literal('content_block_start'),
  index,
  content_block: z.discriminatedUnion('type', [
    textBlock.extend({ text: z.literal('') }),
    thinkingBlock.extend({ thinking: z.literal('') }),
    toolUseBlock.extend({ input: z.strictObject({}) }),
  ]),
}) satisfies z.ZodType<RawContentBlockStartEvent>;

const blockDelta = z.strictObject({
  type: z.literal('content_block_delta'),
  index,
  delta: z.discriminatedUnion('type', [
    z.strictObject({ type: z.literal('text_delta'), text: z.string().min(1) }),
    z.strictObject({ type: z.literal('thinking_delta'), thinking: z.string().min(1) }),
    z.strictObject({ type: z.literal('signature_delta'), signature: z.string() }),
    z.strictObject({ type: z.literal('input_json_delta'), partial_json: z.string() }),
  ]),
}) satisfies z.ZodType<RawContentBlockDeltaEvent>;

const blockStop = z.strictObject({ type: z.literal('content_block_stop'), index }) satisfies z.ZodType<RawContentBlockStopEvent>;

const deltaUsage = z.strictObject({
  input_tokens: count.nullable(),
  output_tokens: count,
  cache_creation_input_tokens: count.nullable(),
  cache_read_input_tokens: count.nullable(),
  output_tokens_details: z.strictObject({ thinking_tokens: count }).nullable(),
  server_tool_use: z.null(),
}) satisfies z.ZodType<MessageDeltaUsage>;

const messageDelta = z.strictObject({
  type: z.literal('message_delta'),
  delta: z.strictObject({ stop_reason: stopReason, stop_sequence: z.string().nullable(), stop_details: z.null(), container: z.null() }),
  usage: deltaUsage,
}) satisfies z.ZodType<RawMessageDeltaEvent>;

const messageStop = z.strictObject({ type: z.literal('message_stop') }) satisfies z.ZodType<RawMessageStopEvent>;

const ping = z.strictObject({ type: z.literal('ping') });

const errorType = z.enum([
  'invalid_request_error',
  'authentication_error',
  'permission_error',
  'not_found_error',
  'request_too_large',
  'rate_limit_error',
  'api_error',
  'overloaded_error',
]);

/** Anthropic's error body; `request_too_large` (413) is documented though the SDK's union lacks it. */
export const errorSchema = z.strictObject({
  type: z.literal('error'),
  error: z.strictObject({ type: errorType, message: z.string().min(1) }),
  request_id: z.string().nullable(),
}) satisfies z.ZodType<Omit<ErrorResponse, 'error'> & { error: { type: string; message: string } }>;

const eventSchemas = {
  message_start: messageStart,
  content_block_start: blockStart,
  content_block_delta: blockDelta,
  content_block_stop: blockStop,
  message_delta: messageDelta,
  message_stop: messageStop,
  ping,
  error: errorSchema,
} as const;

export type EventName = keyof typeof eventSchemas;

export interface ParsedEvent {
  readonly event: EventName;
  readonly data: any;
}

/** An SSE body's events, checking each one's framing (`event:` then `data:`), its shape, and that the name is its `type`. */
export function parseEvents(text: string): ParsedEvent[] {
  expect(text.endsWith('\n\n'), 'the stream ends with a complete event').to.equal(true);
  return parseSse(text).map(({ event: name, data: json, fields, block }) => {
    expect(fields, block).to.deep.equal(['event', 'data']);
    const event = name as EventName;
    expect(Object.keys(eventSchemas), block).to.include(event);
    const data: any = JSON.parse(json);
    const checked = eventSchemas[event].safeParse(data);
    expect(checked.success, `${block}\n${checked.error?.message ?? ''}`).to.equal(true);
    expect(data.type, block).to.equal(event);
    return { event, data };
  });
}

const deltaFor: Readonly<Record<string, readonly string[]>> = {
  text: ['text_delta'],
  thinking: ['thinking_delta', 'signature_delta'],
  tool_use: ['input_json_delta'],
};

/**
 * Checks a complete stream against the documented flow: `message_start`, then
 * blocks (each `content_block_start`, deltas of its own kind, `content_block_stop`,
 * indexes 0, 1, 2, ... with no overlap), then `message_delta` and
 * `message_stop`; `ping` anywhere after `message_start`. Returns the events.
 */
export function checkStream(text: string): ParsedEvent[] {
  const events = parseEvents(text);
  const flow = events.filter((event) => event.event !== 'ping');
  expect(flow[0]?.event).to.equal('message_start');
  expect(flow.at(-1)?.event).to.equal('message_stop');
  expect(flow.at(-2)?.event).to.equal('message_delta');
  let nextIndex = 0;
  let open: { index: number; type: string } | undefined;
  for (const { event, data } of flow.slice(1, -2)) {
    if (event === 'content_block_start') {
      expect(open, 'a block starts only after the previous one stopped').to.equal(undefined);
      expect(data.index).to.equal(nextIndex);
      open = { index: nextIndex, type: data.content_block.type };
      nextIndex += 1;
    } else if (event === 'content_block_delta') {
      expect(open, 'a delta belongs to an open block').to.not.equal(undefined);
      expect(data.index).to.equal(open?.index);
      expect(deltaFor[open?.type ?? '']).to.include(data.delta.type);
    } else if (event === 'content_block_stop') {
      expect(data.index).to.equal(open?.index);
      open = undefined;
    } else {
      expect.fail(`unexpected ${event} between message_start and message_delta`);
    }
  }
  expect(open, 'every block is stopped').to.equal(undefined);
  return events;
}
