/**
 * Plays recorded AI SDK stream parts and whole answers through the four
 * APIs' encoders, with fixed ids and a fixed clock, and writes what they make in
 * the golden files' form. Shared by test/api/encoders.test.ts and
 * scripts/record-golden.ts.
 */
import { readFileSync } from 'node:fs';
import type { LanguageModelV4StreamPart } from '@ai-sdk/provider';
import { FIXTURE_NOW } from '../../../providers/types.ts';
import { isLegacy } from '../../../server/api/chat/request.ts';
import { toChatCompletion } from '../../../server/api/chat/response.ts';
import { chatStream } from '../../../server/api/chat/stream.ts';
import { parseChatRequest } from '../../../server/api/chat/validate.ts';
import type { StreamEncoder } from '../../../server/api/client-api.ts';
import type { EncoderContext, WholeAnswer } from '../../../server/api/encoding.ts';
import type { RoutedFinish, RoutedPart } from '../../../server/routing/index.ts';
import { partNormaliser } from '../../../server/routing/stream-parts.ts';
import { toMessage } from '../../../server/api/messages/response.ts';
import { messagesStream } from '../../../server/api/messages/stream.ts';
import { parseMessagesRequest } from '../../../server/api/messages/validate.ts';
import { toResponse } from '../../../server/api/responses/response.ts';
import { responsesStream } from '../../../server/api/responses/stream.ts';
import { parseResponsesRequest } from '../../../server/api/responses/validate.ts';
import { toGenerateContentResponse } from '../../../server/api/gemini/response.ts';
import { geminiStream } from '../../../server/api/gemini/stream.ts';
import { parseGeminiRequest } from '../../../server/api/gemini/validate.ts';
import type { GoldenApi, GoldenCase } from './cases.ts';

export const goldenDir = new URL('./', import.meta.url).pathname;

/** Ids counting up from 1 in hex, as long as the real ones, and the time the fixtures are played at. */
export function goldenContext(): EncoderContext {
  let count = 0;
  return {
    newId: (prefix, digits) => prefix + (++count).toString(16).padStart(digits, '0'),
    now: () => Math.floor(FIXTURE_NOW / 1000),
  };
}

interface ApiEncoders {
  stream(body: unknown, context: EncoderContext): StreamEncoder;
  /** `served`: the catalog id of the model that answered, which Gemini's answer names. */
  whole(answer: WholeAnswer, body: unknown, context: EncoderContext, served: string): unknown;
}

/** Gemini's request: the body, with the model, the method and `alt=sse` its path would give. */
const geminiRequest = (body: unknown) => parseGeminiRequest(structuredClone(body), { model: 'gemini-3.8-flash', stream: true, sse: true });

/** The catalog id of the model a case's answer comes from. */
export const servedBy = (golden: Pick<GoldenCase, 'provider' | 'modelId'>): string => `${golden.provider}/${golden.modelId}`;

/** Each API's encoders, from its request body as a caller sends it (validated as Freeway validates it). */
export const apiEncoders: Record<GoldenApi, ApiEncoders> = {
  chat: {
    stream: (body, context) => chatStream(parseChatRequest(structuredClone(body)), context),
    whole(answer, body, context) {
      const request = parseChatRequest(structuredClone(body));
      return toChatCompletion(answer, request.model, isLegacy(request), context);
    },
  },
  responses: {
    stream: (body, context) => responsesStream(parseResponsesRequest(structuredClone(body)), context),
    whole: (answer, body, context) => toResponse(answer, parseResponsesRequest(structuredClone(body)), context),
  },
  messages: {
    stream: (body, context) => messagesStream(parseMessagesRequest(structuredClone(body)), context),
    whole: (answer, body, context) => toMessage(answer, parseMessagesRequest(structuredClone(body)), context),
  },
  gemini: {
    stream: (body, context) => geminiStream(geminiRequest(body), context),
    whole: (answer, body, context, served) => toGenerateContentResponse(answer, geminiRequest(body), served, context),
  },
};

/** A thrown value in words: an Error's name and message, anything else (an upstream's error object) as JSON. */
export function describeThrown(thrown: unknown): string {
  return thrown instanceof Error ? `${thrown.name}: ${thrown.message}` : JSON.stringify(thrown);
}

/**
 * What an encoder writes for these upstream parts, as the pipeline drives it:
 * `start()`, each part normalised by routing (`partNormaliser`) and the routed parts
 * it makes given to `part()`, then `end()` with the stream's finish; once the
 * normaliser or the encoder throws, `fail()` with the case's failure. Each upstream
 * part is marked by an SSE comment line (`: part 3 text-delta`) before the events
 * written for it, so the file shows which part made which event and stays a stream
 * any SSE client reads.
 */
export function encodeStream(encoder: StreamEncoder, parts: readonly LanguageModelV4StreamPart[], fail: GoldenCase['fail'], served?: string): string {
  let out = `: start\n${encoder.start(served)}`;
  const failed = (what: string, thrown: unknown): string => {
    if (!fail) throw new Error(`${what} threw, and the case names no failure: ${describeThrown(thrown)}`);
    const [status, type, message] = fail;
    return `${out}: ${what} throws ${describeThrown(thrown)}\n: fail ${status} ${type}\n${encoder.fail(status, type, message)}`;
  };
  const normaliser = partNormaliser();
  let finish: RoutedFinish | undefined;
  let written = '';
  const write = (part: RoutedPart): void => {
    if (part.type === 'finish') finish = part;
    else written += encoder.part(part);
  };
  for (const [index, part] of parts.entries()) {
    const what = `part ${index} ${part.type}`;
    written = '';
    try {
      normaliser.take(part, write);
      out += `: ${what}\n${written}`;
    } catch (thrown) {
      // The normaliser throws before it makes anything of the part (an error part, an interrupted finish).
      return failed(what, thrown);
    }
  }
  try {
    normaliser.end();
    return `${out}: end\n${encoder.end(finish as RoutedFinish)}`;
  } catch (thrown) {
    return failed('end', thrown);
  }
}

/** The events alone, without the marker lines: what a caller receives. */
export const withoutMarkers = (annotated: string): string => annotated.replace(/^: .*\n/gm, '');

export const partsFile = (name: string): string => `${goldenDir}${name}.parts.json`;
export const wholeFile = (name: string): string => `${goldenDir}${name}.whole.json`;
export const streamFile = (name: string, api: GoldenApi): string => `${goldenDir}${name}.${api}.sse`;
export const answerFile = (name: string, api: GoldenApi): string => `${goldenDir}${name}.${api}.json`;

export const readJson = <T>(file: string): T => JSON.parse(readFileSync(file, 'utf8')) as T;

/** Golden JSON: two-space indents and a final newline. */
export const toJsonText = (value: unknown): string => `${JSON.stringify(value, null, 2)}\n`;
