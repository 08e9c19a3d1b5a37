import type { LanguageModelV4FinishReason, LanguageModelV4StreamPart, LanguageModelV4Usage } from '@ai-sdk/provider';
import type { ErrorType } from '../../core/errors.ts';
import { assertFinished } from '../../core/parts.ts';
import type { StreamEncoder } from '../completion.ts';
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
export function responsesStream(request: ResponsesRequest): StreamEncoder {
  const id = newId('resp');
  const createdAt = Math.floor(Date.now() / 1000);
  const head = `{"id":${JSON.stringify(id)},"object":"response","created_at":${createdAt},"model":${JSON.stringify(request.model)},`;
  const echo = JSON.stringify(echoedFields(request)).slice(1);
  const responseJSON = (state: ResponseState): string => `${head}${JSON.stringify(state).slice(1, -1)},${echo}`;

  let sequence = 0;
  const output: OutputItem[] = [];
  let message: OpenItem | undefined;
  let reasoning: OpenItem | undefined;
  const calls = new Map<string, OpenItem>();
  let finishReason: LanguageModelV4FinishReason | undefined;
  let usage: LanguageModelV4Usage | undefined;

  const event = (type: string, fields: Record<string, unknown>): string => {
    const data = JSON.stringify({ type, sequence_number: sequence++, ...fields });
    return `event: ${type}\ndata: ${data}\n\n`;
  };
  const lifecycle = (type: string, state: ResponseState): string =>
    `event: ${type}\ndata: {"type":"${type}","sequence_number":${sequence++},"response":${responseJSON(state)}}\n\n`;
  const deltaHead = (type: string, itemId: string, index: number, extra: string): string =>
    `event: ${type}\ndata: {"type":"${type}","item_id":${JSON.stringify(itemId)},"output_index":${index},${extra}"sequence_number":`;
  const delta = (open: OpenItem, text: string): string => `${open.deltaHead}${sequence++},"delta":${JSON.stringify(text)}}\n\n`;

  function add(item: OutputItem, type: string, extra: string): OpenItem {
    const index = output.length;
    output.push(item);
    return { index, item, deltaHead: deltaHead(type, item.id, index, extra), text: '' };
  }

  function openMessage(): string {
    let out = closeReasoning();
    const item: OutputItem = { id: newId('msg'), type: 'message', status: 'in_progress', role: 'assistant', content: [] };
    const open = add(item, 'response.output_text.delta', '"content_index":0,"logprobs":[],');
    message = open;
    out += event('response.output_item.added', { output_index: open.index, item });
    out += event('response.content_part.added', { item_id: item.id, output_index: open.index, content_index: 0, part: { type: 'output_text', text: '', annotations: [] } });
    return out;
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
      event('response.output_text.done', { ...at, text: open.text, logprobs: [] }) +
      event('response.content_part.done', { ...at, part }) +
      event('response.output_item.done', { output_index: open.index, item: open.item })
    );
  }

  function openReasoning(): string {
    let out = closeMessage();
    const item: OutputItem = { id: newId('rs'), type: 'reasoning', summary: [], status: 'in_progress' };
    const open = add(item, 'response.reasoning_summary_text.delta', '"summary_index":0,');
    reasoning = open;
    out += event('response.output_item.added', { output_index: open.index, item });
    out += event('response.reasoning_summary_part.added', { item_id: item.id, output_index: open.index, summary_index: 0, part: { type: 'summary_text', text: '' } });
    return out;
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
      event('response.reasoning_summary_text.done', { ...at, text: open.text }) +
      event('response.reasoning_summary_part.done', { ...at, part }) +
      event('response.output_item.done', { output_index: open.index, item: open.item })
    );
  }

  function openCall(callId: string, name: string): string {
    const out = closeMessage() + closeReasoning();
    const item = functionCall(request, newId('fc'), 'in_progress', callId, name, '');
    const open = add(item, 'response.function_call_arguments.delta', '');
    calls.set(callId, open);
    return out + event('response.output_item.added', { output_index: open.index, item });
  }

  function closeCall(open: OpenItem, args: string): string {
    if (open.item.type !== 'function_call' || open.item.status !== 'in_progress') return '';
    open.item.arguments = args;
    open.item.status = 'completed';
    return (
      event('response.function_call_arguments.done', { item_id: open.item.id, output_index: open.index, name: open.item.name, arguments: args }) +
      event('response.output_item.done', { output_index: open.index, item: open.item })
    );
  }

  return {
    start: () => lifecycle('response.created', { status: 'in_progress', error: null, incomplete_details: null, output: [] }) + lifecycle('response.in_progress', { status: 'in_progress', error: null, incomplete_details: null, output: [] }),

    part(part: LanguageModelV4StreamPart): string {
      switch (part.type) {
        case 'text-delta': {
          if (part.delta === '') return '';
          const out = message ? '' : openMessage();
          (message as OpenItem).text += part.delta;
          return out + delta(message as OpenItem, part.delta);
        }
        case 'text-end':
          return closeMessage();
        case 'reasoning-delta': {
          if (part.delta === '') return '';
          const out = reasoning ? '' : openReasoning();
          (reasoning as OpenItem).text += part.delta;
          return out + delta(reasoning as OpenItem, part.delta);
        }
        case 'reasoning-end':
          return closeReasoning();
        case 'tool-input-start':
          return calls.has(part.id) ? '' : openCall(part.id, part.toolName);
        case 'tool-input-delta': {
          const open = calls.get(part.id);
          if (!open || part.delta === '') return '';
          open.text += part.delta;
          return delta(open, part.delta);
        }
        case 'tool-call': {
          if (part.providerExecuted) return '';
          const known = calls.get(part.toolCallId);
          if (known) return closeCall(known, part.input);
          // Providers that send whole calls (Gemini): one delta with all the arguments.
          const out = openCall(part.toolCallId, part.toolName);
          const open = calls.get(part.toolCallId) as OpenItem;
          return out + delta(open, part.input) + closeCall(open, part.input);
        }
        case 'finish':
          assertFinished(part.finishReason);
          finishReason = part.finishReason;
          usage = part.usage;
          return '';
        case 'error':
          throw part.error;
        default:
          return '';
      }
    },

    end(): string {
      if (finishReason === undefined || usage === undefined) throw new Error('the upstream stream ended without a finish reason');
      const outcome = toOutcome(finishReason);
      let out = closeReasoning() + closeMessage(outcome.status);
      for (const open of calls.values()) out += closeCall(open, open.text);
      if (output.length === 0) out += openMessage() + closeMessage(outcome.status);
      const type = outcome.status === 'completed' ? 'response.completed' : 'response.incomplete';
      return out + lifecycle(type, finalState(outcome, output, toUsage(usage)));
    },

    fail(_status: number, type: ErrorType, message: string): string {
      // `error`, not `response.failed`: the openai SDK throws on an `error` event but
      // hands `response.failed` over as an ordinary event (and `finalResponse()` resolves).
      return event('error', { code: type, message, param: null });
    },
  };
}
