import type { LanguageModelV4Content, LanguageModelV4FinishReason, LanguageModelV4Prompt } from '@ai-sdk/provider';
import type { OutputPart } from './types.ts';

/**
 * Prompts and answers in the shape of OpenTelemetry's GenAI conventions (`gen_ai.input.messages`,
 * `gen_ai.output.messages`, `gen_ai.system_instructions`: JSON text of messages made of parts),
 * each text passed through the request's redactor and the whole held to `maxLength` characters:
 * what does not fit is left out, and a part cut short ends in `...`.
 */

/** Takes a request's keys and key-shaped text out of a piece of content. */
export type ContentRedactor = (text: string) => string;

type Part =
  | { readonly type: 'text'; readonly content: string }
  | { readonly type: 'reasoning'; readonly content: string }
  | { readonly type: 'tool_call'; readonly id: string; readonly name: string; readonly arguments: string }
  | { readonly type: 'tool_call_response'; readonly id: string; readonly response: string }
  | { readonly type: 'blob'; readonly mime_type: string };

interface Message {
  readonly role: string;
  readonly parts: Part[];
  readonly finish_reason?: string;
}

/** OpenTelemetry's finish reasons for the AI SDK's. */
export function finishReasonOf(reason: LanguageModelV4FinishReason): string {
  switch (reason.unified) {
    case 'content-filter':
      return 'content_filter';
    case 'tool-calls':
      return 'tool_call';
    case 'interrupted':
      return 'error';
    default:
      return reason.unified;
  }
}

/** Texts to parts within a budget of characters: `room` is what is left of it. */
interface Budget {
  room: number;
}

const ELLIPSIS = '...';

/** The text, redacted and cut to the room left; the room taken from the budget. */
function fitted(text: string, redact: ContentRedactor, budget: Budget): string {
  // Cut before redacting too, so that a huge text is not scanned whole (a key cut in two is caught by its fragments).
  const clean = redact(text.length > budget.room + 64 ? text.slice(0, budget.room + 64) : text);
  if (clean.length <= budget.room) {
    budget.room -= clean.length;
    return clean;
  }
  const kept = clean.slice(0, Math.max(0, budget.room - ELLIPSIS.length)) + ELLIPSIS;
  budget.room = 0;
  return kept;
}

const resultText = (output: unknown): string => {
  if (typeof output !== 'object' || output === null) return String(output);
  const { type, value } = output as { type?: unknown; value?: unknown };
  if (type === 'text' || type === 'error-text') return String(value);
  return JSON.stringify(value ?? output) ?? '';
};

function promptParts(content: Exclude<LanguageModelV4Prompt[number], { role: 'system' }>['content'], redact: ContentRedactor, budget: Budget): Part[] {
  const parts: Part[] = [];
  for (const part of content) {
    if (budget.room <= 0) break;
    switch (part.type) {
      case 'text':
        parts.push({ type: 'text', content: fitted(part.text, redact, budget) });
        break;
      case 'reasoning':
        parts.push({ type: 'reasoning', content: fitted(part.text, redact, budget) });
        break;
      case 'file':
        // A file's bytes never go on a span: only what it is.
        parts.push({ type: 'blob', mime_type: fitted(part.mediaType, redact, budget) });
        break;
      case 'tool-call':
        parts.push({ type: 'tool_call', id: fitted(part.toolCallId, redact, budget), name: fitted(part.toolName, redact, budget), arguments: fitted(JSON.stringify(part.input) ?? '', redact, budget) });
        break;
      case 'tool-result':
        parts.push({ type: 'tool_call_response', id: fitted(part.toolCallId, redact, budget), response: fitted(resultText(part.output), redact, budget) });
        break;
      default:
        break;
    }
  }
  return parts;
}

/**
 * JSON text of at most `maxLength` characters, so that the SDK never cuts it into invalid JSON:
 * made with all of `maxLength` as the room for content, then, while the JSON (its quoting and
 * escapes) runs over, again with less room. At worst an empty list.
 */
export function withinLength(maxLength: number, make: (room: number) => unknown[]): string {
  let room = maxLength;
  for (let tries = 0; tries < 4 && room > 0; tries++) {
    const json = JSON.stringify(make(room));
    if (json.length <= maxLength) return json;
    room = Math.floor((room * maxLength) / json.length) - 32;
  }
  return '[]';
}

/** The prompt as `gen_ai.system_instructions` and `gen_ai.input.messages`, each JSON text of at most `maxLength` characters. */
export function promptRecord(prompt: LanguageModelV4Prompt, redact: ContentRedactor, maxLength: number): { system?: string; messages: string } {
  const system = prompt.filter((message) => message.role === 'system');
  const messages = withinLength(maxLength, (room) => {
    const budget: Budget = { room };
    const made: Message[] = [];
    for (const message of prompt) {
      if (message.role === 'system' || budget.room <= 0) continue;
      made.push({ role: message.role, parts: promptParts(message.content, redact, budget) });
    }
    return made;
  });
  if (system.length === 0) return { messages };
  const instructions = withinLength(maxLength, (room) => {
    const budget: Budget = { room };
    return system.flatMap((message) => (budget.room > 0 ? [{ type: 'text', content: fitted(message.content, redact, budget) }] : []));
  });
  return { system: instructions, messages };
}

/** A streamed answer gathered for `gen_ai.output.messages`: its text and tool calls, up to `maxLength` characters. */
export interface OutputRecord {
  take(part: OutputPart): void;
  whole(content: readonly LanguageModelV4Content[]): void;
  /** The answer as JSON text, or undefined when nothing was taken. */
  text(finishReason: string | undefined): string | undefined;
}

export function outputRecord(redact: ContentRedactor, maxLength: number): OutputRecord {
  const budget: Budget = { room: maxLength };
  const parts: Part[] = [];
  // Deltas are joined raw (bounded), then redacted once: a key split across deltas is still found.
  let text = '';
  let taken = false;
  const flushText = (): void => {
    if (text === '') return;
    parts.push({ type: 'text', content: fitted(text, redact, budget) });
    text = '';
  };
  const toolCall = (id: string, name: string, args: string): void => {
    flushText();
    if (budget.room > 0) parts.push({ type: 'tool_call', id: fitted(id, redact, budget), name: fitted(name, redact, budget), arguments: fitted(args, redact, budget) });
  };
  return {
    take(part) {
      taken = true;
      if (part.type === 'text-delta' && part.delta !== undefined) {
        if (text.length <= budget.room + 64) text += part.delta;
      } else if (part.type === 'tool-input-end') {
        toolCall(part.id ?? '', part.toolName ?? '', part.input ?? '');
      }
    },
    whole(content) {
      taken = true;
      for (const part of content) {
        if (part.type === 'text') text += part.text;
        else if (part.type === 'tool-call') toolCall(part.toolCallId, part.toolName, part.input);
      }
    },
    text(finishReason) {
      if (!taken) return undefined;
      flushText();
      const message: Message = finishReason === undefined ? { role: 'assistant', parts } : { role: 'assistant', parts, finish_reason: finishReason };
      const json = JSON.stringify([message]);
      if (json.length <= maxLength) return json;
      // Over the length once quoted: the parts again, each cut shorter.
      return withinLength(maxLength, (room) => {
        const again: Budget = { room };
        const cut = parts.map((part) => (part.type === 'text' ? { ...part, content: fitted(part.content, (text) => text, again) } : part));
        return [{ ...message, parts: cut }];
      });
    },
  };
}
