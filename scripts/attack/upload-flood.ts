/**
 * Attack: uploads. At once, on `/v1/audio/transcriptions`: many files just
 * under AUDIO_MAX_BYTES (the provider takes its time to answer, so each stays
 * held), files just over it, uploads that stall halfway through the file,
 * bodies with too many fields or a field over 16 KB; and on `/v1/embeddings`
 * requests with one input more than EMBEDDINGS_MAX_INPUTS. Meanwhile an honest
 * client on its own address sends chat requests.
 *
 * Holds when every answer is the one docs/embeddings-and-transcription.md and
 * docs/errors.md give (200 or, when BODY_BUFFER_MAX is full, 503 with
 * Retry-After; 413, 408 within BODY_TIMEOUT_MS plus `slackMs`, 400 with the
 * documented message), peak RSS stays within `maxRssMb`, and the honest
 * client's requests are all answered with 200.
 *
 * Found on 2026-11-25: the RSS bound does not hold. BODY_BUFFER_MAX counts each
 * accepted file once, but an upload being forwarded is in memory several times
 * over (the chunks as received, the file they are joined into, the Blob the
 * provider's SDK copies it into for its FormData, the encoder's chunks): 15
 * files of 4 MB held at once by a slow provider (60 MB of the budget) took RSS
 * 268 MB over its baseline.
 *
 *   node scripts/attack/upload-flood.ts
 */
import { once } from 'node:events';
import { connect } from 'node:net';
import type { ServerResponse } from 'node:http';
import { json, openAIText } from '../../test/support/upstream.ts';
import { startFreewayChild } from './freeway-child.ts';
import type { AttackResult } from './types.ts';
import { agentFrom, honestChat, latencies, send, sleep, startUpstream, type Answer } from './upstreams.ts';

export interface UploadFloodOptions {
  /** AUDIO_MAX_BYTES and BODY_BUFFER_MAX for Freeway, in MB (4 and 64: 16 files fill the buffer). */
  readonly audioMaxMb: number;
  readonly bodyBufferMaxMb: number;
  /** BODY_TIMEOUT_MS for Freeway (5 s, to keep the run short) and how late past it a 408 may come (3 s). */
  readonly bodyTimeoutMs: number;
  readonly slackMs: number;
  /** Uploaders of files 1 kB under AUDIO_MAX_BYTES, and uploads each (24 x 3). */
  readonly underClients: number;
  readonly underUploads: number;
  /** Uploaders of files 1 MB over AUDIO_MAX_BYTES, and uploads each (12 x 2). */
  readonly overClients: number;
  readonly overUploads: number;
  /** Uploads that stop halfway through the file (16). */
  readonly stalled: number;
  /** Bodies with 40 text fields, and bodies with a 32 kB prompt (10 each). */
  readonly fieldFloods: number;
  /** Embeddings requests with EMBEDDINGS_MAX_INPUTS + 1 inputs (20). */
  readonly embeddingFloods: number;
  /** How long the provider takes to answer a transcription (400 ms). */
  readonly transcribeMs: number;
  /** How long the honest client runs alone before the flood (2 s). */
  readonly beforeMs: number;
  /**
   * The bound that must hold; by default RSS before the flood plus BODY_BUFFER_MAX plus 192 MB for
   * dropped bodies not yet collected (the socket's chunks of the 63 refused uploads, about 250 MB in
   * all, freed when the collector gets to them): over 30 runs of 2026-11-27 the peak rose 141 to
   * 225 MB above the baseline, the code of before and after this bound alike.
   */
  readonly maxRssMb?: number;
  readonly env: Record<string, string>;
  /** Checkout of Freeway to attack (this one). */
  readonly root?: string;
}

const defaults: UploadFloodOptions = {
  audioMaxMb: 4,
  bodyBufferMaxMb: 64,
  bodyTimeoutMs: 5_000,
  slackMs: 3_000,
  underClients: 24,
  underUploads: 3,
  overClients: 12,
  overUploads: 2,
  stalled: 16,
  fieldFloods: 10,
  embeddingFloods: 20,
  transcribeMs: 400,
  beforeMs: 2_000,
  env: {},
};

/** EMBEDDINGS_MAX_INPUTS's default, which the run keeps. */
const EMBEDDINGS_MAX_INPUTS = 2048;
/** The route's bounds on text fields (server/app.ts: AUDIO_MAX_FIELDS, AUDIO_MAX_FIELD_BYTES). */
const MAX_FIELDS = 16;
const MAX_FIELD_BYTES = 16 * 1024;

const BOUNDARY = 'freeway-attack-boundary';

/** A multipart body: text fields, then (when `fileBytes` is given) a WAV-named file of that many bytes. */
function multipart(fields: ReadonlyArray<readonly [string, string]>, fileBytes?: number): Buffer {
  const parts: Buffer[] = fields.map(([name, value]) => Buffer.from(`--${BOUNDARY}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`));
  if (fileBytes !== undefined) {
    parts.push(Buffer.from(`--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="speech.wav"\r\nContent-Type: audio/wav\r\n\r\n`));
    parts.push(Buffer.alloc(fileBytes, 1));
    parts.push(Buffer.from('\r\n'));
  }
  parts.push(Buffer.from(`--${BOUNDARY}--\r\n`));
  return Buffer.concat(parts);
}

/** Groq's verbose_json transcription answer (https://console.groq.com/docs/speech-to-text). */
function groqVerbose(res: ServerResponse): void {
  json(res, 200, {
    task: 'transcribe',
    language: 'English',
    duration: 1.2,
    text: ' Hello there.',
    segments: [{ id: 0, seek: 0, start: 0, end: 1.2, text: ' Hello there.', tokens: [50364, 2425], temperature: 0, avg_logprob: -0.2, compression_ratio: 0.8, no_speech_prob: 0.01 }],
    x_groq: { id: 'req_01jx8b0000example' },
  });
}

const messageOf = (answer: Answer): string => {
  try {
    return String((JSON.parse(answer.body) as { error?: { message?: unknown } }).error?.message ?? '');
  } catch {
    return '';
  }
};

/** `status:count` for each status, and how many answers were not the documented ones. */
function tally(answers: readonly Answer[], documented: (answer: Answer) => boolean): { text: string; wrong: number } {
  const counts = new Map<number, number>();
  for (const answer of answers) counts.set(answer.status, (counts.get(answer.status) ?? 0) + 1);
  return {
    text: [...counts].sort(([a], [b]) => a - b).map(([status, n]) => `${status}:${n}`).join(' '),
    wrong: answers.filter((answer) => !documented(answer)).length,
  };
}

export async function run(options: Partial<UploadFloodOptions> = {}): Promise<AttackResult> {
  const opts = { ...defaults, ...options };
  const audioMax = opts.audioMaxMb * 1024 * 1024;
  const upstream = await startUpstream(async (req, res) => {
    if (req.path.endsWith('/audio/transcriptions')) {
      await sleep(opts.transcribeMs);
      groqVerbose(res);
    } else {
      openAIText(res, 'Hello', req);
    }
  });
  const freeway = await startFreewayChild(
    {
      MODELS_LIVE: 'off',
      GROQ_BASE_URL: upstream.url,
      AUDIO_MAX_BYTES: `${opts.audioMaxMb}mb`,
      BODY_BUFFER_MAX: `${opts.bodyBufferMaxMb}mb`,
      BODY_TIMEOUT_MS: String(opts.bodyTimeoutMs),
      RATE_LIMIT_MAX: '1000000',
      ...opts.env,
    },
    opts.root,
  );
  const groqKey = 'gsk_uploadfloodz8Qw3eRt5yUi7oPa9sDf';
  const upload = (body: Buffer): Record<string, string> => ({ 'content-type': `multipart/form-data; boundary=${BOUNDARY}`, 'content-length': String(body.length), 'x-groq-key': groqKey });

  const honest = honestChat(freeway.port, groqKey);
  await sleep(opts.beforeMs);

  const baselineMb = freeway.rssMb();
  const maxRssMb = opts.maxRssMb ?? Math.round(baselineMb + opts.bodyBufferMaxMb + 192);
  freeway.resetPeak();
  const floodStarted = performance.now();

  const model: ReadonlyArray<readonly [string, string]> = [['model', 'free:transcribe']];
  const underBody = multipart(model, audioMax - 1024);
  const overBody = multipart(model, audioMax + 1024 * 1024);
  const manyFields = multipart([...model, ...Array.from({ length: 40 }, (_, i): [string, string] => [`field${i}`, 'x'])], 1024);
  const longField = multipart([...model, ['prompt', 'x'.repeat(32 * 1024)]], 1024);
  const embeddings = JSON.stringify({ model: 'free:embed', input: Array.from({ length: EMBEDDINGS_MAX_INPUTS + 1 }, () => 'hi') });

  const uploader = async (address: string, body: Buffer, times: number, into: Answer[]): Promise<void> => {
    const agent = agentFrom(address, 1);
    for (let i = 0; i < times; i++) into.push(await send(agent, freeway.port, 'POST', '/v1/audio/transcriptions', upload(body), body));
    agent.destroy();
  };
  const under: Answer[] = [];
  const over: Answer[] = [];
  const fields: Answer[] = [];
  const long: Answer[] = [];
  const embedded: Answer[] = [];
  const work = [
    ...Array.from({ length: opts.underClients }, (_, i) => uploader(`127.0.3.${i + 1}`, underBody, opts.underUploads, under)),
    ...Array.from({ length: opts.overClients }, (_, i) => uploader(`127.0.4.${i + 1}`, overBody, opts.overUploads, over)),
    ...Array.from({ length: opts.fieldFloods }, (_, i) => uploader(`127.0.5.${i + 1}`, manyFields, 1, fields)),
    ...Array.from({ length: opts.fieldFloods }, (_, i) => uploader(`127.0.6.${i + 1}`, longField, 1, long)),
    ...Array.from({ length: opts.embeddingFloods }, async (_, i) => {
      const agent = agentFrom(`127.0.7.${i + 1}`, 1);
      embedded.push(await send(agent, freeway.port, 'POST', '/v1/embeddings', { 'content-type': 'application/json', 'x-nvidia-key': 'nvapi-uploadflood0123456789abcdefghij' }, embeddings));
      agent.destroy();
    }),
  ];
  const stalls = Array.from({ length: opts.stalled }, () => stall(freeway.port, underBody, opts.bodyTimeoutMs + opts.slackMs + 20_000));
  await Promise.all(work);
  const stalled = await Promise.all(stalls);
  const floodEnded = performance.now();
  const peakMb = freeway.peakRssMb();
  await sleep(1_000);
  await honest.stop();
  const afterMb = freeway.rssMb();
  const survived = freeway.alive();
  await freeway.stop();
  await upstream.close();

  const busy = (answer: Answer): boolean =>
    answer.status === 503 && answer.headers['retry-after'] === '2' && messageOf(answer) === 'Freeway is receiving too many request bodies at once. Retry shortly.';
  const tooLarge = `Validation failed: file: larger than AUDIO_MAX_BYTES (${opts.audioMaxMb}mb).`;
  const timedOut = `Request body not received within ${opts.bodyTimeoutMs / 1000} s.`;
  const underTally = tally(under, (answer) => (answer.status === 200 && answer.body.includes('Hello there.')) || busy(answer));
  const overTally = tally(over, (answer) => (answer.status === 413 && messageOf(answer) === tooLarge) || busy(answer));
  const stalledTally = tally(stalled, (answer) => ((answer.status === 408 && messageOf(answer) === timedOut) || busy(answer)) && answer.ms <= opts.bodyTimeoutMs + opts.slackMs);
  const fieldsTally = tally(fields, (answer) => answer.status === 400 && messageOf(answer) === `Validation failed: body: more than ${MAX_FIELDS} fields`);
  const longTally = tally(long, (answer) => answer.status === 400 && messageOf(answer) === `Validation failed: prompt: longer than ${MAX_FIELD_BYTES} bytes`);
  const inputsMessage = `Validation failed: input: ${EMBEDDINGS_MAX_INPUTS + 1} inputs, more than the ${EMBEDDINGS_MAX_INPUTS} one request may carry (EMBEDDINGS_MAX_INPUTS); send them in several requests`;
  const embeddingsTally = tally(embedded, (answer) => answer.status === 400 && messageOf(answer) === inputsMessage);
  const wrong = underTally.wrong + overTally.wrong + stalledTally.wrong + fieldsTally.wrong + longTally.wrong + embeddingsTally.wrong;
  const accepted = under.filter((answer) => answer.status === 200).length;
  const before = honest.between(0, floodStarted);
  const during = honest.between(floodStarted, floodEnded);
  const honestFailed = honest.failed();

  return {
    name: 'upload-flood',
    held: survived && wrong === 0 && accepted > 0 && peakMb < maxRssMb && honestFailed === 0 && during.length > 0,
    figures: {
      settings: `AUDIO_MAX_BYTES=${opts.audioMaxMb}mb BODY_BUFFER_MAX=${opts.bodyBufferMaxMb}mb BODY_TIMEOUT_MS=${opts.bodyTimeoutMs} EMBEDDINGS_MAX_INPUTS=${EMBEDDINGS_MAX_INPUTS}`,
      underLimitUploads: `${under.length}: ${underTally.text}`,
      overLimitUploads: `${over.length}: ${overTally.text}`,
      stalledUploads: `${stalled.length}: ${stalledTally.text}, slowest ${Math.round(Math.max(0, ...stalled.map((a) => a.ms)))} ms`,
      tooManyFields: `${fields.length}: ${fieldsTally.text}`,
      oversizedField: `${long.length}: ${longTally.text}`,
      tooManyEmbeddingInputs: `${embedded.length}: ${embeddingsTally.text}`,
      undocumentedAnswers: wrong,
      floodSeconds: ((floodEnded - floodStarted) / 1000).toFixed(1),
      baselineRssMb: Math.round(baselineMb),
      peakRssMb: Math.round(peakMb),
      rssAfterMb: Math.round(afterMb),
      maxRssMb,
      honestBefore: latencies(before),
      honestDuring: latencies(during),
      honestNot200: honestFailed,
      processSurvived: survived ? 'yes' : 'no',
    },
  };
}

/** Sends the headers and half of `body`, then nothing: the answer Freeway gives, and when. */
async function stall(port: number, body: Buffer, giveUpMs: number): Promise<Answer> {
  const socket = connect(port, '127.0.0.1');
  socket.on('error', () => {});
  await once(socket, 'connect');
  const started = performance.now();
  const chunks: Buffer[] = [];
  socket.on('data', (chunk: Buffer) => chunks.push(chunk));
  const closed = new Promise<void>((resolve) => {
    socket.once('close', () => resolve());
    socket.once('end', () => resolve());
  });
  socket.write(
    `POST /v1/audio/transcriptions HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: multipart/form-data; boundary=${BOUNDARY}\r\nContent-Length: ${body.length}\r\nX-Groq-Key: gsk_uploadfloodz8Qw3eRt5yUi7oPa9sDf\r\n\r\n`,
  );
  socket.write(body.subarray(0, Math.floor(body.length / 2)));
  const timer = setTimeout(() => socket.destroy(), giveUpMs);
  await closed;
  clearTimeout(timer);
  const ms = performance.now() - started;
  socket.destroy();
  const text = Buffer.concat(chunks).toString('utf8');
  const head = text.slice(0, text.indexOf('\r\n\r\n'));
  const retryAfter = /\r\nretry-after: *(\S+)/i.exec(head)?.[1];
  return { status: Number(text.slice(9, 12)) || 0, ms, body: text.slice(text.indexOf('\r\n\r\n') + 4), headers: retryAfter ? { 'retry-after': retryAfter } : {} };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const result = await run();
  console.log(JSON.stringify(result, null, 2));
  process.exitCode = result.held ? 0 : 1;
}
