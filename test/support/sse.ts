/**
 * The tests' one reader of server-sent events, as a client reads them (the
 * HTML standard's "interpreting an event stream"): lines end in LF or CRLF, an
 * empty line ends an event, a field is `name: value` (one space after the colon
 * is dropped), lines starting with `:` are comments, `data` lines join with LF,
 * and a block without data dispatches nothing. Stricter than a client in one
 * way: a body that stops inside an event is an error, since Freeway writes
 * every event whole.
 */
export interface SseEvent {
  /** The `event:` field; undefined when the block has none. */
  readonly event: string | undefined;
  /** The `data:` lines, joined by LF. */
  readonly data: string;
  /** The names of the block's fields in order, comments left out (`['event', 'data']`). */
  readonly fields: readonly string[];
  /** The block as sent, for failure messages. */
  readonly block: string;
}

export function parseSse(text: string): SseEvent[] {
  const lines = text.split('\n');
  if (lines.pop() !== '') throw new Error(`the stream stops inside a line: ${text.slice(-200)}`);
  const events: SseEvent[] = [];
  let block: string[] = [];
  let fields: string[] = [];
  let event: string | undefined;
  let data: string[] = [];
  for (const raw of lines) {
    const line = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
    if (line === '') {
      if (data.length > 0) events.push({ event, data: data.join('\n'), fields, block: block.join('\n') });
      block = [];
      fields = [];
      event = undefined;
      data = [];
      continue;
    }
    block.push(line);
    if (line.startsWith(':')) continue;
    const colon = line.indexOf(':');
    const name = colon === -1 ? line : line.slice(0, colon);
    const value = colon === -1 ? '' : line.slice(line[colon + 1] === ' ' ? colon + 2 : colon + 1);
    fields.push(name);
    if (name === 'event') event = value;
    else if (name === 'data') data.push(value);
  }
  if (fields.length > 0) throw new Error(`the stream stops inside an event: ${block.join('\n')}`);
  return events;
}

/** The JSON payloads of a chat-completions stream's events; `[DONE]` stays a string. */
export function sseEvents(text: string): any[] {
  return parseSse(text).map(({ data }) => (data === '[DONE]' ? data : JSON.parse(data)));
}

/** A Responses stream's events, checking the framing: each has `event:` and `data:`, and the name is the data's `type`. */
export function responseEvents(text: string): any[] {
  return parseSse(text).map(({ event, data, block }) => {
    if (event === undefined) throw new Error(`SSE event without event: and data: lines: ${block}`);
    const parsed = JSON.parse(data) as { type: string };
    if (parsed.type !== event) throw new Error(`event: ${event} carries data of type ${parsed.type}`);
    return parsed;
  });
}
