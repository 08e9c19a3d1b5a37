/**
 * The fast tier of the client APIs: recorded AI SDK stream parts and whole
 * answers in (test/api/golden/<case>.parts.json, .whole.json, recorded by
 * scripts/record-golden.ts from the upstream answers in golden/cases.ts), each
 * API's events and answer objects out, compared with the golden files byte for
 * byte. No server, no upstream, no clock: ids and time come from a fixed
 * context, so the same parts always give the same events. A second group plays
 * the cases' upstream answers to the AI SDK models again (in memory) and checks
 * the recorded parts are still what the AI SDK makes of them.
 */
import { readFileSync } from 'node:fs';
import type { LanguageModelV4StreamPart } from '@ai-sdk/provider';
import { expect } from 'chai';
import { chatStream } from '../../server/api/chat/stream.ts';
import type { WholeAnswer } from '../../server/api/encoding.ts';
import type { RoutedFinish } from '../../server/routing/index.ts';
import { messagesStream } from '../../server/api/messages/stream.ts';
import { responsesStream } from '../../server/api/responses/stream.ts';
import { parseResponsesRequest } from '../../server/api/responses/validate.ts';
import { checkStream, messageSchema, parseEvents } from '../support/anthropic-events.ts';
import { parseSse, responseEvents, sseEvents } from '../support/sse.ts';
import { goldenCases, type GoldenApi } from './golden/cases.ts';
import { answerFile, apiEncoders, encodeStream, goldenContext, partsFile, readJson, servedBy, streamFile, toJsonText, wholeFile, withoutMarkers } from './golden/encode.ts';
import { geminiEvents } from '../support/gemini.ts';
import { geminiStream } from '../../server/api/gemini/stream.ts';
import { parseGeminiRequest } from '../../server/api/gemini/validate.ts';
import { recordCase } from './golden/record.ts';

/** Parts or content without the tool-call ids the AI SDK makes up for Gemini, which has none (random per recording). */
function withoutMadeUpIds(items: readonly object[]): object[] {
  return items.map((item) => {
    const { id: _id, toolCallId: _toolCallId, ...rest } = item as Record<string, unknown>;
    return String(rest.type).startsWith('tool-') ? rest : item;
  });
}

/** Each API's own reading of its events: chat's JSON data lines, Responses' typed events, Anthropic's schemas and block order. */
function readAsClient(api: GoldenApi, events: string, failed: boolean): void {
  if (api === 'chat') sseEvents(events);
  else if (api === 'gemini') geminiEvents(events);
  else if (api === 'responses') responseEvents(events);
  else if (failed) parseEvents(events);
  else checkStream(events);
}

describe('golden encoders: recorded AI SDK parts in, each API’s events out', function () {
  for (const golden of goldenCases) {
    describe(`${golden.name}: ${golden.about}`, function () {
      const parts = readJson<LanguageModelV4StreamPart[]>(partsFile(golden.name));
      const whole = golden.whole === undefined ? undefined : readJson<WholeAnswer>(wholeFile(golden.name));
      for (const [api, body] of Object.entries(golden.requests) as Array<[GoldenApi, unknown]>) {
        it(`${api}: the stream, event by event`, function () {
          const expected = readFileSync(streamFile(golden.name, api), 'utf8');
          const actual = encodeStream(apiEncoders[api].stream(body, goldenContext()), parts, golden.fail, servedBy(golden));
          const blocks = (text: string): string[] => parseSse(withoutMarkers(text)).map((event) => event.block);
          expect(blocks(actual)).to.deep.equal(blocks(expected));
          expect(actual, 'the same events, from the same parts').to.equal(expected);
          readAsClient(api, withoutMarkers(actual), golden.fail !== undefined);
        });
        if (whole === undefined) continue;
        it(`${api}: the whole answer`, function () {
          const actual = apiEncoders[api].whole(whole, body, goldenContext(), servedBy(golden));
          expect(toJsonText(actual)).to.equal(readFileSync(answerFile(golden.name, api), 'utf8'));
          if (api === 'messages') messageSchema.parse(actual);
        });
      }
    });
  }

  describe('the recorded parts are what the AI SDK makes of the cases’ upstream answers', function () {
    for (const golden of goldenCases) {
      it(`${golden.name} (${golden.provider})`, async function () {
        const { parts, whole } = await recordCase(golden);
        const same = golden.provider === 'google' ? withoutMadeUpIds : (items: readonly object[]) => items;
        expect(same(parts)).to.deep.equal(same(readJson<object[]>(partsFile(golden.name))));
        if (whole === undefined) return;
        const recorded = readJson<WholeAnswer>(wholeFile(golden.name));
        expect({ ...whole, content: same(whole.content) }).to.deep.equal({ ...recorded, content: same(recorded.content) });
      });
    }
  });

  describe('outside the golden files: Freeway’s own ids and clock', function () {
    const finish: RoutedFinish = {
      type: 'finish',
      finishReason: { unified: 'stop', raw: 'stop' },
      usage: { inputTokens: { total: 1, noCache: 1, cacheRead: undefined, cacheWrite: undefined }, outputTokens: { total: 1, text: 1, reasoning: undefined } },
    };
    const idOf = (text: string): string => (JSON.parse((parseSse(text)[0] as { data: string }).data) as { id?: string; message?: { id: string }; response?: { id: string } }).id ?? '';

    it('chat: a random chatcmpl- id per stream, and `created` from the clock', function () {
      const request = { model: 'free:auto', messages: [{ role: 'user' as const, content: 'Hi' }] };
      const [a, b] = [chatStream(request).start(), chatStream(request).start()];
      expect(idOf(a)).to.match(/^chatcmpl-[0-9a-f]{32}$/);
      expect(idOf(a)).to.not.equal(idOf(b));
      const created = (JSON.parse((parseSse(a)[0] as { data: string }).data) as { created: number }).created;
      expect(Math.abs(created - Date.now() / 1000)).to.be.below(60);
    });

    it('responses: a random resp_ id per stream', function () {
      const request = parseResponsesRequest({ model: 'free:auto', input: 'Hi', stream: true });
      const [a, b] = [responsesStream(request), responsesStream(request)];
      const id = (encoder: typeof a): string => (responseEvents(encoder.start())[0] as { response: { id: string } }).response.id;
      expect(id(a)).to.match(/^resp_[0-9a-f]{32}$/);
      expect(id(a)).to.not.equal(id(b));
      expect(a.end(finish)).to.include('response.completed');
    });

    it('gemini: a random responseId per stream, and the model that answers as modelVersion', function () {
      const request = parseGeminiRequest({ contents: [{ parts: [{ text: 'Hi' }] }] }, { model: 'gemini-3.8-flash', stream: true, sse: true });
      const ids = [geminiStream(request), geminiStream(request)].map((encoder) => {
        encoder.start('groq/openai/gpt-oss-120b');
        return geminiEvents(encoder.end(finish))[0] as { responseId: string; modelVersion: string };
      });
      expect(ids[0]?.responseId).to.match(/^[0-9a-f]{32}$/);
      expect(ids[0]?.responseId).to.not.equal(ids[1]?.responseId);
      expect(ids[0]?.modelVersion).to.equal('groq/openai/gpt-oss-120b');
    });

    it('messages: a random msg_ id of 24 hex digits per stream', function () {
      const request = { model: 'claude-sonnet-4-6', max_tokens: 8, messages: [{ role: 'user' as const, content: 'Hi' }] };
      const id = (): string => (parseEvents(messagesStream(request).start())[0]?.data as { message: { id: string } }).message.id;
      const [a, b] = [id(), id()];
      expect(a).to.match(/^msg_[0-9a-f]{24}$/);
      expect(a).to.not.equal(b);
    });
  });
});
