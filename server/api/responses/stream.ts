import type { ErrorType } from '../../core/errors.ts';
import type { RoutedContentPart } from '../../routing/index.ts';
import type { StreamEncoder } from '../client-api.ts';
import { systemContext, type EncoderContext } from '../encoding.ts';
import { echoedFields, finalState, functionCall, newId, toOutcome, toUsage, type ItemStatus, type OutputItem, type ResponseState } from './response.ts';
import type { ResponsesRequest } from './types.ts';

/** An output item while it streams: its finished form, and the text its deltas added so far. */
interface OpenItem {
  readonly index: number;
  readonly item: OutputItem;
  /** `event: ...\ndata: {...,"sequence_number":` for this item's deltas, built once. */
  readonly deltaHead: string;
  text: string;
}

/** Numbers the events of one stream and writes them; a delta is a constant prefix, its number and the text. */
interface EventWriter {
  event(type: string, fields: Record<string, unknown>): string;
  /** `response.created` and the other events that carry the whole Response object. */
  lifecycle(type: string, state: ResponseState): string;
  delta(open: OpenItem, text: string): string;
}

function eventWriter(request: ResponsesRequest, context: EncoderContext): EventWriter {
  const head = `{"id":${JSON.stringify(newId(context, 'resp'))},"object":"response","created_at":${context.now()},"model":${JSON.stringify(request.model)},`;
  const echo = JSON.stringify(echoedFields(request)).slice(1);
  let sequence = 0;
  return {
    event(type, fields) {
      const data = JSON.stringify({ type, sequence_number: sequence++, ...fields });
      return `event: ${type}\ndata: ${data}\n\n`;
    },
    lifecycle: (type, state) =>
      `event: ${type}\ndata: {"type":"${type}","sequence_number":${sequence++},"response":${head}${JSON.stringify(state).slice(1, -1)},${echo}}\n\n`,
    delta: (open, text) => `${open.deltaHead}${sequence++},"delta":${JSON.stringify(text)}}\n\n`,
  };
}

/** The output items of one stream: each opened, filled and closed as its parts come. */
interface Items {
  readonly output: OutputItem[];
  /** The open message or reasoning item, if one is. */
  current(kind: 'message' | 'reasoning'): OpenItem | undefined;
  /** Opens a message or reasoning item, closing the open one of the other kind. */
  openText(kind: 'message' | 'reasoning'): string;
  closeMessage(status?: ItemStatus): string;
  closeReasoning(): string;
  /** Opens a function call item, closing the open message or reasoning item. */
  openCall(callId: string, name: string): string;
  callOf(callId: string): OpenItem | undefined;
  closeCall(open: OpenItem, args: string): string;
}

function streamItems(request: ResponsesRequest, context: EncoderContext, write: EventWriter): Items {
  const output: OutputItem[] = [];
  let message: OpenItem | undefined;
  let reasoning: OpenItem | undefined;
  const calls = new Map<string, OpenItem>();

  function add(item: OutputItem, type: string, extra: string): OpenItem {
    const index = output.length;
    output.push(item);
    const deltaHead = `event: ${type}\ndata: {"type":"${type}","item_id":${JSON.stringify(item.id)},"output_index":${index},${extra}"sequence_number":`;
    return { index, item, deltaHead, text: '' };
  }

  function openMessage(): OpenItem {
    const item: OutputItem = { id: newId(context, 'msg'), type: 'message', status: 'in_progress', role: 'assistant', content: [] };
    return add(item, 'response.output_text.delta', '"content_index":0,"logprobs":[],');
  }

  function openReasoning(): OpenItem {
    const item: OutputItem = { id: newId(context, 'rs'), type: 'reasoning', summary: [], status: 'in_progress' };
    return add(item, 'response.reasoning_summary_text.delta', '"summary_index":0,');
  }

  function closeMessage(status: ItemStatus = 'completed'): string {
    const open = message;
    if (!open || open.item.type !== 'message') return '';
    message = undefined;
    const part = { type: 'output_text' as const, text: open.text, annotations: [] as [] };
    open.item.content.push(part);
    open.item.status = status;
    const at = { item_id: open.item.id, output_index: open.index, content_index: 0 };
    return (
      write.event('response.output_text.done', { ...at, text: open.text, logprobs: [] }) +
      write.event('response.content_part.done', { ...at, part }) +
      write.event('response.output_item.done', { output_index: open.index, item: open.item })
    );
  }

  function closeReasoning(): string {
    const open = reasoning;
    if (!open || open.item.type !== 'reasoning') return '';
    reasoning = undefined;
    const part = { type: 'summary_text' as const, text: open.text };
    open.item.summary.push(part);
    open.item.status = 'completed';
    const at = { item_id: open.item.id, output_index: open.index, summary_index: 0 };
    return (
      write.event('response.reasoning_summary_text.done', { ...at, text: open.text }) +
      write.event('response.reasoning_summary_part.done', { ...at, part }) +
      write.event('response.output_item.done', { output_index: open.index, item: open.item })
    );
  }

  function openText(kind: 'message' | 'reasoning'): string {
    if (kind === 'message') {
      let out = closeReasoning();
      const open = (message = openMessage());
      out += write.event('response.output_item.added', { output_index: open.index, item: open.item });
      return out + write.event('response.content_part.added', { item_id: open.item.id, output_index: open.index, content_index: 0, part: { type: 'output_text', text: '', annotations: [] } });
    }
    let out = closeMessage();
    const open = (reasoning = openReasoning());
    out += write.event('response.output_item.added', { output_index: open.index, item: open.item });
    return out + write.event('response.reasoning_summary_part.added', { item_id: open.item.id, output_index: open.index, summary_index: 0, part: { type: 'summary_text', text: '' } });
  }

  function openCall(callId: string, name: string): string {
    const out = closeMessage() + closeReasoning();
    const item = functionCall(request, { id: newId(context, 'fc'), status: 'in_progress', callId, name, args: '' });
    const open = add(item, 'response.function_call_arguments.delta', '');
    calls.set(callId, open);
    return out + write.event('response.output_item.added', { output_index: open.index, item: open.item });
  }

  function closeCall(open: OpenItem, args: string): string {
    if (open.item.type !== 'function_call' || open.item.status !== 'in_progress') return '';
    open.item.arguments = args;
    open.item.status = 'completed';
    return (
      write.event('response.function_call_arguments.done', { item_id: open.item.id, output_index: open.index, name: open.item.name, arguments: args }) +
      write.event('response.output_item.done', { output_index: open.index, item: open.item })
    );
  }

  return {
    output,
    current: (kind) => (kind === 'message' ? message : reasoning),
    openText,
    closeMessage,
    closeReasoning,
    openCall,
    callOf: (callId) => calls.get(callId),
    closeCall,
  };
}

const IN_PROGRESS: ResponseState = { status: 'in_progress', error: null, incomplete_details: null, output: [] };

/**
 * OpenAI's Responses event stream for one answer: `response.created`,
 * `response.in_progress`, then each output item (reasoning summary, message,
 * function call) added, its deltas and done, then `response.completed` or
 * `response.incomplete`. The response's fixed fields are serialized once per
 * stream and each delta's event is a constant prefix, the sequence number and
 * one JSON.stringify of the new text. A new item closes the open message or
 * reasoning item; function calls stay open until the upstream finishes them
 * (OpenAI-compatible streams finish every call at their end), so calls may
 * overlap, each event naming its item by output_index. What the items hold is
 * kept until the end, for the final Response object (one answer's size, as for
 * a non-streaming caller).
 */
export function responsesStream(request: ResponsesRequest, context: EncoderContext = systemContext): StreamEncoder {
  const write = eventWriter(request, context);
  const items = streamItems(request, context, write);

  function textDelta(kind: 'message' | 'reasoning', text: string): string {
    if (text === '') return '';
    const out = items.current(kind) ? '' : items.openText(kind);
    const open = items.current(kind) as OpenItem;
    open.text += text;
    return out + write.delta(open, text);
  }

  return {
    start: () => write.lifecycle('response.created', IN_PROGRESS) + write.lifecycle('response.in_progress', IN_PROGRESS),

    part(part: RoutedContentPart): string {
      switch (part.type) {
        case 'text-delta':
          return textDelta('message', part.delta);
        case 'text-end':
          return items.closeMessage();
        case 'reasoning-delta':
          return textDelta('reasoning', part.delta);
        case 'reasoning-end':
          return items.closeReasoning();
        case 'tool-input-start':
          return items.openCall(part.id, part.toolName);
        case 'tool-input-delta': {
          const open = items.callOf(part.id);
          return !open || part.delta === '' ? '' : write.delta(open, part.delta);
        }
        case 'tool-input-end': {
          const open = items.callOf(part.id);
          return open ? items.closeCall(open, part.input) : '';
        }
        default:
          return '';
      }
    },

    end({ finishReason, usage }): string {
      const outcome = toOutcome(finishReason);
      // Every call has ended by now: routing ends a stream's calls before its finish.
      let out = items.closeReasoning() + items.closeMessage(outcome.status);
      if (items.output.length === 0) out += items.openText('message') + items.closeMessage(outcome.status);
      const type = outcome.status === 'completed' ? 'response.completed' : 'response.incomplete';
      return out + write.lifecycle(type, finalState(outcome, items.output, toUsage(usage), context.now));
    },

    fail(_status: number, type: ErrorType, message: string): string {
      // `error`, not `response.failed`: the openai SDK throws on an `error` event but
      // hands `response.failed` over as an ordinary event (and `finalResponse()` resolves).
      return write.event('error', { code: type, message, param: null });
    },
  };
}
