/**
 * Records the golden encoder fixtures (test/api/golden/): plays each case's
 * upstream answer (test/api/golden/cases.ts) to the AI SDK model its provider
 * plugin builds, saves the stream parts as the encoders receive them and the
 * whole answer of a non-streaming call (test/api/golden/record.ts), then what
 * each API's encoder makes of them. Run it after changing a case, an encoder on
 * purpose, or the AI SDK, and read the diff. Gemini's answers carry no
 * tool-call ids and the AI SDK makes random ones, so the files of Google's cases
 * change with every recording; nothing else does. Name cases to record only
 * those: the others' events are written again from their recorded parts.
 *
 *   node scripts/record-golden.ts [case ...]
 */
import { writeFileSync } from 'node:fs';
import type { LanguageModelV4StreamPart } from '@ai-sdk/provider';
import type { WholeAnswer } from '../server/api/encoding.ts';
import { goldenCases, type GoldenApi } from '../test/api/golden/cases.ts';
import { answerFile, apiEncoders, encodeStream, goldenContext, partsFile, readJson, servedBy, streamFile, toJsonText, wholeFile } from '../test/api/golden/encode.ts';
import { recordCase } from '../test/api/golden/record.ts';

const only = process.argv.slice(2);
const unknown = only.filter((name) => !goldenCases.some((golden) => golden.name === name));
if (unknown.length > 0) throw new Error(`no golden case named ${unknown.join(', ')}`);

for (const golden of goldenCases) {
  const record = only.length === 0 || only.includes(golden.name);
  const { parts, whole } = record
    ? await recordCase(golden)
    : { parts: readJson<LanguageModelV4StreamPart[]>(partsFile(golden.name)), whole: golden.whole === undefined ? undefined : readJson<WholeAnswer>(wholeFile(golden.name)) };
  if (record) {
    writeFileSync(partsFile(golden.name), toJsonText(parts));
    if (whole !== undefined) writeFileSync(wholeFile(golden.name), toJsonText(whole));
  }
  for (const [api, body] of Object.entries(golden.requests) as Array<[GoldenApi, unknown]>) {
    writeFileSync(streamFile(golden.name, api), encodeStream(apiEncoders[api].stream(body, goldenContext()), parts, golden.fail, servedBy(golden)));
    if (whole !== undefined) writeFileSync(answerFile(golden.name, api), toJsonText(apiEncoders[api].whole(whole, body, goldenContext(), servedBy(golden))));
  }
  console.log(`${golden.name}: ${record ? 'recorded' : 'encoded'}, ${parts.length} parts, ${Object.keys(golden.requests).join(', ')}`);
}
