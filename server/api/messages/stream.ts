import { noUsage } from '../../../providers/usage.ts';
import type { RoutedContentPart } from '../../routing/index.ts';
import type { StreamEncoder } from '../client-api.ts';
import { systemContext, type EncoderContext } from '../encoding.ts';
import { anthropicErrorBody } from './errors.ts';
import { toToolUseId } from './request.ts';
import { messageId, showsThinking, THINKING_SIGNATURE, toStopReason, toUsage } from './response.ts';
import type { MessagesRequest } from './types.ts';

const event = (name: string, data: string): string => `event: ${name}\ndata: ${data}\n\n`;

const PING = event('ping', '{"type":"ping"}');
const MESSAGE_STOP = event('message_stop', '{"type":"message_stop"}');

const blockStop = (index: number): string => event('content_block_stop', `{"type":"content_block_stop","index":${index}}`);

const blockStart = (index: number, block: string): string =>
  event('content_block_start', `{"type":"content_block_start","index":${index},"content_block":${block}}`);

const blockDelta = (index: number, delta: string): string =>
  event('content_block_delta', `{"type":"content_block_delta","index":${index},"delta":${delta}}`);

/** `message_start` comes before the upstream has counted anything. */
const START_USAGE = JSON.stringify(toUsage(noUsage));

type OpenBlock = { kind: 'text' | 'thinking'; index: number } | { kind: 'tool'; index: number; id: string };

/** The content blocks of one answer, started, filled and stopped one after another, indexed 0, 1, 2, ... */
interface Blocks {
  /** The block open now, if any. */
  open: OpenBlock | undefined;
  /** The index of the next block. */
  next: number;
  /** Whether a tool_use block was started. */
  madeToolCalls: boolean;
}

/** Stops the open block (a thinking block gets its signature first). */
function closeBlock(blocks: Blocks): string {
  const open = blocks.open;
  if (!open) return '';
  blocks.open = undefined;
  const signature = open.kind === 'thinking' ? blockDelta(open.index, `{"type":"signature_delta","signature":${JSON.stringify(THINKING_SIGNATURE)}}`) : '';
  return signature + blockStop(open.index);
}

const TEXT_BLOCK = '{"type":"text","text":"","citations":null}';
const THINKING_BLOCK = `{"type":"thinking","thinking":"","signature":${JSON.stringify(THINKING_SIGNATURE)}}`;

/** Opens a text or thinking block unless one of that kind is open. */
function ensureBlock(blocks: Blocks, kind: 'text' | 'thinking'): string {
  if (blocks.open?.kind === kind) return '';
  const out = closeBlock(blocks);
  const index = blocks.next++;
  blocks.open = { kind, index };
  return out + blockStart(index, kind === 'text' ? TEXT_BLOCK : THINKING_BLOCK);
}

function startToolBlock(blocks: Blocks, id: string, name: string): string {
  const out = closeBlock(blocks);
  const index = blocks.next++;
  blocks.open = { kind: 'tool', index, id };
  blocks.madeToolCalls = true;
  return out + blockStart(index, `{"type":"tool_use","id":${JSON.stringify(toToolUseId(id))},"name":${JSON.stringify(name)},"input":{},"caller":{"type":"direct"}}`);
}

/** A delta of the open block. */
const openDelta = (blocks: Blocks, delta: string): string => blockDelta((blocks.open as OpenBlock).index, delta);
const inputDelta = (blocks: Blocks, json: string): string => openDelta(blocks, `{"type":"input_json_delta","partial_json":${JSON.stringify(json)}}`);

/** Whether a part can be sent now: anything while no tool_use block is open, else only that call's own parts. */
function ready(part: RoutedContentPart, open: OpenBlock | undefined): boolean {
  if (open?.kind !== 'tool') return true;
  switch (part.type) {
    case 'text-delta':
    case 'reasoning-delta':
      return part.delta === '';
    case 'tool-input-start':
      return false;
    case 'tool-input-delta':
    case 'tool-input-end':
      return part.id === open.id;
    default:
      return true;
  }
}

/**
 * Anthropic's stream for one answer. Anthropic's content blocks come one after
 * another, each started, filled and stopped, while the AI SDK's parts may
 * interleave (OpenAI-compatible providers finish every tool call only at the
 * end of the stream, and text may arrive while a call's arguments stream). A
 * text or thinking block simply ends when another block starts; a tool_use
 * block stays open until its call is complete, and parts of other blocks wait
 * in `waiting`, in order, meanwhile. `waiting` holds at most the rest of this
 * one answer, which `max_tokens` bounds.
 */
export function messagesStream(request: MessagesRequest, context: EncoderContext = systemContext): StreamEncoder {
  const model = JSON.stringify(request.model);
  const thinking = showsThinking(request);
  const blocks: Blocks = { open: undefined, next: 0, madeToolCalls: false };
  const waiting: RoutedContentPart[] = [];
  const isOpenTool = (id: string): boolean => blocks.open?.kind === 'tool' && blocks.open.id === id;

  function emit(part: RoutedContentPart): string {
    switch (part.type) {
      case 'text-delta':
        if (part.delta === '') return '';
        return ensureBlock(blocks, 'text') + openDelta(blocks, `{"type":"text_delta","text":${JSON.stringify(part.delta)}}`);
      case 'reasoning-delta':
        if (part.delta === '' || !thinking) return '';
        return ensureBlock(blocks, 'thinking') + openDelta(blocks, `{"type":"thinking_delta","thinking":${JSON.stringify(part.delta)}}`);
      case 'tool-input-start':
        return startToolBlock(blocks, part.id, part.toolName);
      case 'tool-input-delta':
        return isOpenTool(part.id) && part.delta !== '' ? inputDelta(blocks, part.delta) : '';
      case 'tool-input-end':
        return isOpenTool(part.id) ? closeBlock(blocks) : '';
      default:
        return '';
    }
  }

  /** Sends the waiting parts that can go now, in order; a tool block closing lets earlier ones go. */
  function pump(): string {
    let out = '';
    let at = 0;
    while (at < waiting.length) {
      const part = waiting[at] as RoutedContentPart;
      if (!ready(part, blocks.open)) {
        at += 1;
        continue;
      }
      waiting.splice(at, 1);
      const inTool = blocks.open?.kind === 'tool';
      out += emit(part);
      if (inTool && blocks.open?.kind !== 'tool') at = 0;
    }
    return out;
  }

  function encode(part: RoutedContentPart): string {
    if (!ready(part, blocks.open)) {
      waiting.push(part);
      return '';
    }
    const inTool = blocks.open?.kind === 'tool';
    const out = emit(part);
    return inTool && blocks.open?.kind !== 'tool' && waiting.length > 0 ? out + pump() : out;
  }

  return {
    start() {
      const message = `{"id":"${messageId(context)}","type":"message","role":"assistant","model":${model},"content":[],"stop_reason":null,"stop_sequence":null,"stop_details":null,"container":null,"diagnostics":null,"usage":${START_USAGE}}`;
      return event('message_start', `{"type":"message_start","message":${message}}`) + PING;
    },
    part: encode,
    end({ finishReason, usage }) {
      let out = '';
      while (blocks.open || waiting.length > 0) out += closeBlock(blocks) + pump();
      const { input_tokens, output_tokens, cache_creation_input_tokens, cache_read_input_tokens, output_tokens_details } = toUsage(usage);
      const delta = {
        type: 'message_delta',
        delta: { stop_reason: toStopReason(finishReason, blocks.madeToolCalls), stop_sequence: null, stop_details: null, container: null },
        usage: { input_tokens, output_tokens, cache_creation_input_tokens, cache_read_input_tokens, output_tokens_details, server_tool_use: null },
      };
      return out + event('message_delta', JSON.stringify(delta)) + MESSAGE_STOP;
    },
    fail: (status, type, message) => event('error', JSON.stringify(anthropicErrorBody(status, type, message))),
  };
}
