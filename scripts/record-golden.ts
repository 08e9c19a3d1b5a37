/**
 * Records the golden encoder fixtures (test/api/golden/): plays each case's
 * upstream answer (test/api/golden/cases.ts) to the AI SDK model its provider
 * plugin builds, saves the stream parts as the encoders receive them and the
 * whole answer of a non-streaming call (test/api/golden/record.ts), then what
 * each API's encoder makes of them. Run it after changing a case, an encoder on
 * purpose, or the AI SDK, and read the diff. Gemini's answers carry no
 * tool-call ids and the AI SDK makes random ones, so the gemini-tool-call files
 * change with every recording; nothing else does.
 *
 *   node scripts/record-golden.ts
 */
import { writeFileSync } from 'node:fs';
import { goldenCases, type GoldenApi } from '../test/api/golden/cases.ts';
import { answerFile, apiEncoders, encodeStream, goldenContext, partsFile, streamFile, toJsonText, wholeFile } from '../test/api/golden/encode.ts';
import { recordCase } from '../test/api/golden/record.ts';

for (const golden of goldenCases) {
  const { parts, whole } = await recordCase(golden);
  writeFileSync(partsFile(golden.name), toJsonText(parts));
  if (whole !== undefined) writeFileSync(wholeFile(golden.name), toJsonText(whole));
  for (const [api, body] of Object.entries(golden.requests) as Array<[GoldenApi, unknown]>) {
    writeFileSync(streamFile(golden.name, api), encodeStream(apiEncoders[api].stream(body, goldenContext()), parts, golden.fail));
    if (whole !== undefined) writeFileSync(answerFile(golden.name, api), toJsonText(apiEncoders[api].whole(whole, body, goldenContext())));
  }
  console.log(`${golden.name}: ${parts.length} parts, ${Object.keys(golden.requests).join(', ')}`);
}
