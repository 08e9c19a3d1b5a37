import type { RoutedContentPart, RoutedFinish } from '../../routing/index.ts';
import type { StreamEncoder } from '../client-api.ts';
import { systemContext, type EncoderContext } from '../encoding.ts';
import { googleErrorBody } from './errors.ts';
import { callPart, responseIdOf, showsThoughts, signatureOf, toFinishReason, toUsageMetadata, type OutPart } from './response.ts';
import type { GeminiRequest } from './types.ts';

/**
 * U+2028, U+2029 and U+0085, which JSON.stringify leaves as they are but line readers take
 * for line breaks: Google's SDKs read an event as one `data:` line, and a raw U+2028 in it
 * breaks Gemini CLI's stream ("Incomplete JSON segment", BerriAI/litellm#30471).
 */
const lineBreaks = /[\u2028\u2029\u0085]/g;
const escapeLineBreaks = (json: string): string => json.replace(lineBreaks, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`);

/** How one element is written: an SSE event, or an element of the JSON array. */
interface Framing {
  readonly start: string;
  element(json: string, first: boolean): string;
  readonly end: string;
}

/** `data: <one line of JSON>` and a blank line, nothing else: no `event:`, no comments, no `[DONE]`. */
const sseFraming: Framing = { start: '', element: (json) => `data: ${json}\n\n`, end: '' };
/** streamGenerateContent without `alt=sse`: one JSON array of GenerateContentResponse objects. */
const arrayFraming: Framing = { start: '[', element: (json, first) => (first ? json : `,\n${json}`), end: ']' };

/**
 * Gemini's streamGenerateContent for one answer: a GenerateContentResponse per text
 * delta, thought (`thought: true`, when the caller asked for them) or whole function
 * call, each with one candidate. The last event carries the `finishReason` (STOP for
 * function calls too, as Google sends it) and the usage the upstream reported: each
 * event is held until the next part comes, so the finish goes on the last content
 * rather than on an empty event. A failure after the first byte ends the stream with
 * one last element holding Google's error envelope.
 */
export function geminiStream(request: GeminiRequest, context: EncoderContext = systemContext): StreamEncoder {
  const framing = request.sse ? sseFraming : arrayFraming;
  const thoughts = showsThoughts(request);
  const responseId = responseIdOf(context);
  const head = '{"candidates":[{"content":{"role":"model","parts":';
  let tail = '';
  let held: OutPart | undefined;
  let written = 0;

  const element = (json: string): string => framing.element(escapeLineBreaks(json), written++ === 0);
  const event = (part: OutPart, closing: string): string => element(`${head}${JSON.stringify([part])}}${closing}${tail}`);
  /** Writes the held part, keeping `next` back in its place. */
  const hold = (next: OutPart): string => {
    const out = held === undefined ? '' : event(held, ',"index":0}],');
    held = next;
    return out;
  };

  return {
    contentType: request.sse ? undefined : 'application/json',

    start(model?: string): string {
      tail = `"modelVersion":${JSON.stringify(model ?? request.model)},"responseId":${JSON.stringify(responseId)}}`;
      return framing.start;
    },

    part(part: RoutedContentPart): string {
      switch (part.type) {
        case 'text-delta': {
          const signature = signatureOf(part.providerMetadata);
          if (part.delta === '' && signature === undefined) return '';
          return hold(signature === undefined ? { text: part.delta } : { text: part.delta, thoughtSignature: signature });
        }
        case 'reasoning-delta': {
          const signature = signatureOf(part.providerMetadata);
          const text = thoughts ? part.delta : '';
          if (text === '' && signature === undefined) return '';
          return hold(signature === undefined ? { text, thought: true } : { text, thought: true, thoughtSignature: signature });
        }
        case 'tool-input-end':
          return hold(callPart(part.id, part.toolName, part.input, part.providerMetadata));
        default:
          return '';
      }
    },

    end({ finishReason, usage }: RoutedFinish): string {
      const last = held ?? { text: '' };
      held = undefined;
      const metadata = toUsageMetadata(usage);
      const closing = `,"finishReason":"${toFinishReason(finishReason)}","index":0}],${metadata ? `"usageMetadata":${JSON.stringify(metadata)},` : ''}`;
      return event(last, closing) + framing.end;
    },

    fail(status: number, _type, message: string): string {
      const out = held === undefined ? '' : event(held, ',"index":0}],');
      held = undefined;
      return out + element(JSON.stringify(googleErrorBody(status, message))) + framing.end;
    },
  };
}
