/**
 * CPU per streamed answer of each client API's stream encoder, without HTTP:
 * the same AI SDK parts (a text answer of DELTAS deltas, 20 by default, and a tool call in 10
 * argument pieces) through routing's normaliser and the encoders of chat completions, the Responses API and the Messages API.
 * Shows what one API's events cost next to another's on the per-chunk path.
 *
 *   node scripts/bench/stream-encoders.ts
 *   DELTAS=200 node scripts/bench/stream-encoders.ts
 */
import type { LanguageModelV4StreamPart } from '@ai-sdk/provider';
import { chatStream } from '../../server/api/chat/stream.ts';
import { messagesStream } from '../../server/api/messages/stream.ts';
import { parseMessagesRequest } from '../../server/api/messages/validate.ts';
import type { ChatRequest } from '../../server/api/chat/types.ts';
import type { StreamEncoder } from '../../server/api/client-api.ts';
import { responsesStream } from '../../server/api/responses/stream.ts';
import { parseResponsesRequest } from '../../server/api/responses/validate.ts';
import type { RoutedFinish, RoutedPart } from '../../server/routing/index.ts';
import { partNormaliser } from '../../server/routing/stream-parts.ts';

const usage = { inputTokens: { total: 7, noCache: 7, cacheRead: undefined, cacheWrite: undefined }, outputTokens: { total: 20, text: 20, reasoning: undefined } };
const finish: LanguageModelV4StreamPart = { type: 'finish', finishReason: { unified: 'stop', raw: 'stop' }, usage };

const deltas = Number(process.env.DELTAS ?? 20);
const text: LanguageModelV4StreamPart[] = [
  { type: 'text-start', id: 't' },
  ...Array.from({ length: deltas }, (_, i): LanguageModelV4StreamPart => ({ type: 'text-delta', id: 't', delta: `word${i} ` })),
  { type: 'text-end', id: 't' },
  finish,
];
const args = '{"city":"Paris","unit":"celsius","days":3}';
const toolCall: LanguageModelV4StreamPart[] = [
  { type: 'tool-input-start', id: 'call_1', toolName: 'get_weather' },
  ...Array.from({ length: 10 }, (_, i): LanguageModelV4StreamPart => ({ type: 'tool-input-delta', id: 'call_1', delta: args.slice(i * 5, i * 5 + 5) })),
  { type: 'tool-input-end', id: 'call_1' },
  { type: 'tool-call', toolCallId: 'call_1', toolName: 'get_weather', input: args },
  { ...finish, finishReason: { unified: 'tool-calls', raw: 'tool_calls' } },
];

const chatRequest: ChatRequest = { model: 'free:auto', messages: [{ role: 'user', content: 'Hi' }], stream: true };
const responsesRequest = parseResponsesRequest({ model: 'free:auto', input: 'Hi', stream: true });
const messagesRequest = parseMessagesRequest({ model: 'claude-sonnet-4-6', max_tokens: 1024, messages: [{ role: 'user', content: 'Hi' }], stream: true });

/** One answer as the pipeline makes it: the upstream's parts through routing's normaliser, the routed parts through the encoder. */
function run(open: () => StreamEncoder, parts: readonly LanguageModelV4StreamPart[]): number {
  const encoder = open();
  const normaliser = partNormaliser();
  let bytes = encoder.start().length;
  let finish: RoutedFinish | undefined;
  const write = (part: RoutedPart): void => {
    if (part.type === 'finish') finish = part;
    else bytes += encoder.part(part).length;
  };
  for (const part of parts) normaliser.take(part, write);
  normaliser.end();
  return bytes + encoder.end(finish as RoutedFinish).length;
}

function measure(name: string, open: () => StreamEncoder, parts: readonly LanguageModelV4StreamPart[]): void {
  const iterations = 20_000;
  for (let i = 0; i < 2_000; i++) run(open, parts);
  let bytes = 0;
  const started = process.hrtime.bigint();
  for (let i = 0; i < iterations; i++) bytes += run(open, parts);
  const micros = Number(process.hrtime.bigint() - started) / 1000 / iterations;
  console.log(`${name.padEnd(28)} ${micros.toFixed(1).padStart(6)} µs per answer, ${(micros / parts.length).toFixed(2)} µs per part, ${Math.round(bytes / iterations)} bytes`);
}

measure(`chat, text (${deltas} deltas)`, () => chatStream(chatRequest), text);
measure(`responses, text (${deltas} deltas)`, () => responsesStream(responsesRequest), text);
measure(`messages, text (${deltas} deltas)`, () => messagesStream(messagesRequest), text);
measure('chat, tool call', () => chatStream(chatRequest), toolCall);
measure('responses, tool call', () => responsesStream(responsesRequest), toolCall);
measure('messages, tool call', () => messagesStream(messagesRequest), toolCall);
