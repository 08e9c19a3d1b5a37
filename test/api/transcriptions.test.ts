/**
 * POST /v1/audio/transcriptions through Freeway with the official openai SDK and raw multipart
 * bodies, against fake providers on 127.0.0.1. Groq's answer is its documented verbose_json
 * (https://console.groq.com/docs/speech-to-text: text, segments with start / end, language,
 * duration, x_groq.id); Workers AI's is its run endpoint's envelope with the model's output
 * (https://developers.cloudflare.com/workers-ai/models/whisper-large-v3-turbo/).
 */
import { expect } from 'chai';
import type { ServerResponse } from 'node:http';
import { once } from 'node:events';
import { request as httpRequest } from 'node:http';
import { connect } from 'node:net';
import { toFile } from 'openai';
import { expectError } from '../support/errors.ts';
import { startFreeway, type RunningFreeway } from '../support/freeway.ts';
import { keyHeaders, testKeys } from '../support/keys.ts';
import { wav } from '../support/audio.ts';
import { openaiClient, rejection } from '../support/suite.ts';
import { json, startUpstream, type FakeUpstream, type SeenRequest } from '../support/upstream.ts';

const spoken = ' Hello there. How are you today?';

/** Groq's verbose_json transcription answer. */
function groqVerbose(res: ServerResponse): void {
  json(res, 200, {
    task: 'transcribe',
    language: 'English',
    duration: 3.5,
    text: spoken,
    segments: [
      { id: 0, seek: 0, start: 0, end: 1.2, text: ' Hello there.', tokens: [50364, 2425], temperature: 0, avg_logprob: -0.2, compression_ratio: 0.8, no_speech_prob: 0.01 },
      { id: 1, seek: 0, start: 1.2, end: 3.5, text: ' How are you today?', tokens: [50424, 1012], temperature: 0, avg_logprob: -0.2, compression_ratio: 0.8, no_speech_prob: 0.01 },
    ],
    x_groq: { id: 'req_01jx8b0000example' },
  });
}

/** Workers AI's answer for @cf/openai/whisper-large-v3-turbo. */
function workersWhisper(res: ServerResponse): void {
  json(res, 200, {
    result: {
      transcription_info: { language: 'en', language_probability: 0.99, duration: 3.5, duration_after_vad: 3.4 },
      text: 'Hello there. How are you today?',
      word_count: 6,
      segments: [
        { start: 0, end: 1.2, text: 'Hello there.', temperature: 0, avg_logprob: -0.2, compression_ratio: 0.8, no_speech_prob: 0.01, words: [] },
        { start: 1.2, end: 3.5, text: 'How are you today?', temperature: 0, avg_logprob: -0.2, compression_ratio: 0.8, no_speech_prob: 0.01, words: [] },
      ],
      vtt: 'WEBVTT\n\n00:00.000 --> 00:01.200\nHello there.\n\n00:01.200 --> 00:03.500\nHow are you today?\n\n',
    },
    success: true,
    errors: [],
    messages: [],
  });
}

const providerOf = (req: SeenRequest): string => (req.path.startsWith('/accounts/') ? 'cloudflare' : 'groq');

describe('transcriptions: POST /v1/audio/transcriptions', function () {
  let upstream: FakeUpstream;
  let freeway: RunningFreeway;
  const keys = keyHeaders('groq', 'cloudflare');

  before(async function () {
    upstream = await startUpstream();
    freeway = await startFreeway({ env: { GROQ_BASE_URL: upstream.url, CLOUDFLARE_BASE_URL: upstream.url, AUDIO_MAX_BYTES: '64kb' } });
  });
  after(async function () {
    await freeway.close();
    await upstream.close();
  });
  beforeEach(function () {
    upstream.requests.length = 0;
    upstream.handle((req, res) => (providerOf(req) === 'groq' ? groqVerbose(res) : workersWhisper(res)));
  });

  describe('with the official openai SDK, a small WAV in each response_format', function () {
    it('json', async function () {
      const client = openaiClient(freeway, keys);
      const { data: result, response } = await client.audio.transcriptions
        .create({ file: await toFile(wav(), 'speech.wav', { type: 'audio/wav' }), model: 'free:transcribe', language: 'en', prompt: 'A greeting.', temperature: 0.2 })
        .withResponse();
      expect(result).to.deep.equal({ text: spoken });
      expect(response.headers.get('x-freeway-model')).to.equal('groq/whisper-large-v3-turbo');
      expect(upstream.requests).to.have.length(1);
      expect(upstream.requests[0]?.path).to.equal('/audio/transcriptions');
      expect(upstream.requests[0]?.headers.authorization).to.equal(`Bearer ${testKeys.groq}`);
      expect(upstream.requests[0]?.headers['content-type']).to.match(/^multipart\/form-data; boundary=/);
    });

    it('text', async function () {
      const client = openaiClient(freeway, keys);
      const text = await client.audio.transcriptions.create({ file: await toFile(wav(), 'speech.wav'), model: 'free:transcribe', response_format: 'text' });
      expect(text).to.equal(`${spoken}\n`);
    });

    it('verbose_json', async function () {
      const client = openaiClient(freeway, keys);
      const result = await client.audio.transcriptions.create({ file: await toFile(wav(), 'speech.wav'), model: 'free:transcribe', response_format: 'verbose_json' });
      expect(result).to.deep.equal({
        task: 'transcribe',
        language: 'English',
        duration: 3.5,
        text: spoken,
        segments: [
          { id: 0, start: 0, end: 1.2, text: ' Hello there.' },
          { id: 1, start: 1.2, end: 3.5, text: ' How are you today?' },
        ],
      });
    });

    it('srt', async function () {
      const client = openaiClient(freeway, keys);
      const srt = await client.audio.transcriptions.create({ file: await toFile(wav(), 'speech.wav'), model: 'free:transcribe', response_format: 'srt' });
      expect(srt).to.equal('1\n00:00:00,000 --> 00:00:01,200\nHello there.\n\n2\n00:00:01,200 --> 00:00:03,500\nHow are you today?\n\n');
    });

    it('vtt', async function () {
      const client = openaiClient(freeway, keys);
      const vtt = await client.audio.transcriptions.create({ file: await toFile(wav(), 'speech.wav'), model: 'free:transcribe', response_format: 'vtt' });
      expect(vtt).to.equal('WEBVTT\n\n00:00:00.000 --> 00:00:01.200\nHello there.\n\n00:00:01.200 --> 00:00:03.500\nHow are you today?\n\n');
    });
  });

  describe('routing', function () {
    it('a Groq rate limit fails over to Workers AI, the same Whisper weights, which gets the same file', async function () {
      upstream.handle((req, res) => {
        if (providerOf(req) === 'groq') {
          json(res, 429, { error: { message: 'Rate limit reached for model `whisper-large-v3-turbo` on audio seconds per hour (ASPH): Limit 7200, Used 7195. Please try again in 1m0s.', type: 'audio_seconds', code: 'rate_limit_exceeded' } });
          return;
        }
        workersWhisper(res);
      });
      const client = openaiClient(freeway, keys);
      const audio = wav(2000);
      const { data: result, response } = await client.audio.transcriptions
        .create({ file: await toFile(audio, 'speech.wav'), model: 'free:transcribe', language: 'en', response_format: 'verbose_json' })
        .withResponse();
      expect(result.text).to.equal('Hello there. How are you today?');
      expect(result.language).to.equal('en');
      expect(response.headers.get('x-freeway-model')).to.equal('cloudflare/@cf/openai/whisper-large-v3-turbo');
      expect(response.headers.get('x-freeway-attempts')).to.match(/^groq\/whisper-large-v3-turbo 429 \d+ms, cloudflare\/@cf\/openai\/whisper-large-v3-turbo 200 \d+ms$/);
      const workers = upstream.requests.find((req) => providerOf(req) === 'cloudflare');
      expect(workers?.path).to.equal(`/accounts/${testKeys.cloudflare?.split(':')[0]}/ai/run/@cf/openai/whisper-large-v3-turbo`);
      expect(workers?.body).to.deep.equal({ audio: audio.toString('base64'), language: 'en' });
    });

    it('whisper-large-v3 pinned on Groq stays on Groq', async function () {
      upstream.handle((_req, res) => json(res, 500, { error: { message: 'Internal Server Error', type: 'internal_server_error' } }));
      const client = openaiClient(freeway, keys);
      const error = await rejection(async () => client.audio.transcriptions.create({ file: await toFile(wav(), 'speech.wav'), model: 'groq/whisper-large-v3' }));
      expect(error.status).to.equal(502);
      expect(error.type).to.equal('freeway_provider_error');
      expect(upstream.requests.map(providerOf)).to.deep.equal(['groq']);
    });
  });

  describe('refused requests (OpenAI error shape, body read to its end)', function () {
    const boundary = '----freeway-test-boundary';
    function multipart(parts: ReadonlyArray<{ name: string; value: string | Buffer; filename?: string; type?: string }>): Buffer {
      const chunks: Buffer[] = [];
      for (const part of parts) {
        const disposition = `form-data; name="${part.name}"${part.filename === undefined ? '' : `; filename="${part.filename}"`}`;
        const type = part.type === undefined ? '' : `Content-Type: ${part.type}\r\n`;
        chunks.push(Buffer.from(`--${boundary}\r\nContent-Disposition: ${disposition}\r\n${type}\r\n`), Buffer.isBuffer(part.value) ? part.value : Buffer.from(part.value), Buffer.from('\r\n'));
      }
      chunks.push(Buffer.from(`--${boundary}--\r\n`));
      return Buffer.concat(chunks);
    }
    const post = (body: Buffer, contentType = `multipart/form-data; boundary=${boundary}`): Promise<Response> =>
      fetch(`${freeway.url}/v1/audio/transcriptions`, { method: 'POST', headers: { 'content-type': contentType, ...keys }, body });

    it('a missing file, an empty file, a wrong type', async function () {
      await expectError(await post(multipart([{ name: 'model', value: 'free:transcribe' }])), 400, 'invalid_request_error', 'Validation failed: file: required, the audio as a multipart file field');
      await expectError(
        await post(multipart([{ name: 'model', value: 'free:transcribe' }, { name: 'file', value: Buffer.alloc(0), filename: 'a.wav', type: 'audio/wav' }])),
        400,
        'invalid_request_error',
        'Validation failed: file: is empty',
      );
      await expectError(
        await post(multipart([{ name: 'model', value: 'free:transcribe' }, { name: 'file', value: Buffer.from('not audio'), filename: 'notes.txt', type: 'text/plain' }])),
        400,
        'invalid_request_error',
        'Validation failed: file: invalid file format. Supported formats: flac, m4a, mp3, mp4, mpeg, mpga, oga, ogg, wav, webm',
      );
      expect(upstream.requests).to.have.length(0);
    });

    it('a file over AUDIO_MAX_BYTES is a 413 after the body was read', async function () {
      const body = multipart([{ name: 'model', value: 'free:transcribe' }, { name: 'file', value: wav(40_000), filename: 'long.wav', type: 'audio/wav' }]);
      await expectError(await post(body), 413, 'invalid_request_error', 'Validation failed: file: larger than AUDIO_MAX_BYTES (64kb).');
      expect(upstream.requests).to.have.length(0);
    });

    it('a file over AUDIO_MAX_BYTES is answered 413 while the client is still uploading, without Content-Length', async function () {
      const { port } = new URL(freeway.url);
      const answer = await new Promise<{ status: number; body: string }>((resolve, reject) => {
        const req = httpRequest({ host: '127.0.0.1', port, method: 'POST', path: '/v1/audio/transcriptions', headers: { 'content-type': `multipart/form-data; boundary=${boundary}`, ...keys } }, (res) => {
          let text = '';
          res.on('data', (chunk: Buffer) => (text += chunk.toString()));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
        });
        req.on('error', reject);
        req.write(multipart([{ name: 'model', value: 'free:transcribe' }]).subarray(0, -`--${boundary}--\r\n`.length));
        req.write(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="a.wav"\r\nContent-Type: audio/wav\r\n\r\n`);
        // Chunked, far past twice the limit: Freeway answers and closes without waiting for the end.
        const chunk = Buffer.alloc(16 * 1024);
        let sent = 0;
        const pump = (): void => {
          while (sent < 512 * 1024) {
            sent += chunk.length;
            if (!req.write(chunk)) {
              req.once('drain', pump);
              return;
            }
          }
          req.end(`\r\n--${boundary}--\r\n`);
        };
        pump();
      });
      expect(answer.status).to.equal(413);
      expect(JSON.parse(answer.body)).to.deep.equal({ error: { message: 'Validation failed: file: larger than AUDIO_MAX_BYTES (64kb).', type: 'invalid_request_error', code: 413 } });
    });

    it('a body that is not multipart, a bad response_format, temperature or language, too many fields', async function () {
      await expectError(
        await post(Buffer.from('{"model":"free:transcribe"}'), 'application/json'),
        400,
        'invalid_request_error',
        'Validation failed: body: must be multipart/form-data with the audio in a "file" field',
      );
      const file = { name: 'file', value: wav(), filename: 'a.wav', type: 'audio/wav' };
      await expectError(
        await post(multipart([{ name: 'model', value: 'free:transcribe' }, { name: 'response_format', value: 'xml' }, file])),
        400,
        'invalid_request_error',
        'Validation failed: response_format: must be one of json, text, srt, verbose_json, vtt',
      );
      await expectError(await post(multipart([{ name: 'model', value: 'free:transcribe' }, { name: 'temperature', value: '3' }, file])), 400, 'invalid_request_error', 'Validation failed: temperature: a number from 0 to 1');
      await expectError(await post(multipart([{ name: 'model', value: 'free:transcribe' }, { name: 'language', value: 'english!' }, file])), 400, 'invalid_request_error', 'Validation failed: language: an ISO-639-1 code such as "en"');
      await expectError(await post(multipart([file])), 400, 'invalid_request_error', 'Validation failed: model: required');
      const many = Array.from({ length: 20 }, (_, i) => ({ name: `extra${i}`, value: 'x' }));
      await expectError(await post(multipart([{ name: 'model', value: 'free:transcribe' }, ...many, file])), 400, 'invalid_request_error', 'Validation failed: body: more than 16 fields');
      await expectError(
        await post(multipart([{ name: 'model', value: 'free:transcribe' }, { name: 'prompt', value: 'p'.repeat(17 * 1024) }, file])),
        400,
        'invalid_request_error',
        'Validation failed: prompt: longer than 16384 bytes',
      );
      expect(upstream.requests).to.have.length(0);
    });

    it('a chat or embedding model is a 400 naming it; a transcription model on a chat API too', async function () {
      const file = { name: 'file', value: wav(), filename: 'a.wav', type: 'audio/wav' };
      await expectError(
        await post(multipart([{ name: 'model', value: 'free:embed' }, file])),
        400,
        'invalid_request_error',
        'free:embed is an embedding model, not a transcription model: use it with POST /v1/embeddings.',
      );
      await expectError(
        await post(multipart([{ name: 'model', value: 'groq/llama-3.1-8b-instant' }, file])),
        400,
        'invalid_request_error',
        'groq/llama-3.1-8b-instant is a chat model, not a transcription model: use it with POST /v1/chat/completions, /v1/responses or /v1/messages.',
      );
      const chat = await fetch(`${freeway.url}/v1/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...keys },
        body: JSON.stringify({ model: 'free:transcribe', messages: [{ role: 'user', content: 'hi' }] }),
      });
      await expectError(chat, 400, 'invalid_request_error', 'free:transcribe is a transcription model, not a chat model: use it with POST /v1/audio/transcriptions.');
      expect(upstream.requests).to.have.length(0);
    });
  });

  describe('logs', function () {
    it('carry neither the audio nor the transcript', async function () {
      const client = openaiClient(freeway, keys);
      await client.audio.transcriptions.create({ file: await toFile(wav(), 'speech.wav'), model: 'free:transcribe', prompt: 'secret-prompt-words' });
      await freeway.logged(/POST \/v1\/audio\/transcriptions/);
      const logs = freeway.logs.join('\n');
      expect(logs).to.not.include('How are you today');
      expect(logs).to.not.include('secret-prompt-words');
      expect(logs).to.not.include(wav().subarray(44, 80).toString('base64'));
    });
  });
});

describe('transcriptions: the file is held within BODY_BUFFER_MAX, five times over, until the answer is out', function () {
  let upstream: FakeUpstream;
  let freeway: RunningFreeway;
  let release: () => void = () => {};

  before(async function () {
    upstream = await startUpstream();
    freeway = await startFreeway({ env: { GROQ_BASE_URL: upstream.url, BODY_LIMIT: '16kb', BODY_BUFFER_MAX: '500kb', AUDIO_MAX_BYTES: '80kb' } });
  });
  after(async function () {
    release();
    await freeway.close();
    await upstream.close();
  });

  it('a second upload that does not fit beside a file still in flight is a 503 with Retry-After; once the first is answered there is room again', async function () {
    const held = new Promise<void>((resolve) => (release = resolve));
    let arrived: () => void = () => {};
    const firstArrived = new Promise<void>((resolve) => (arrived = resolve));
    upstream.handle(async (_req, res) => {
      arrived();
      await held;
      groqVerbose(res);
    });
    const client = openaiClient(freeway, keyHeaders('groq'));
    // 60 KB of audio, counted 300 KB (the copies made to send it on): held while Groq takes its time.
    const first = client.audio.transcriptions.create({ file: await toFile(wav(30_000), 'a.wav'), model: 'groq/whisper-large-v3-turbo' });
    await firstArrived;
    const second = await rejection(async () => client.audio.transcriptions.create({ file: await toFile(wav(30_000), 'b.wav'), model: 'groq/whisper-large-v3-turbo' }));
    expect(second.status).to.equal(503);
    expect(second.type).to.equal('server_error');
    expect(second.message).to.equal('503 Freeway is receiving too many request bodies at once. Retry shortly.');
    expect(second.headers?.get('retry-after')).to.equal('2');
    release();
    expect(await first).to.deep.equal({ text: spoken });
    upstream.handle((_req, res) => groqVerbose(res));
    const third = await client.audio.transcriptions.create({ file: await toFile(wav(30_000), 'c.wav'), model: 'groq/whisper-large-v3-turbo' });
    expect(third).to.deep.equal({ text: spoken });
  });

  it('AUDIO_MAX_BYTES, not BODY_LIMIT, bounds this route: a 60 KB file passes a 16 KB BODY_LIMIT', async function () {
    upstream.handle((_req, res) => groqVerbose(res));
    const client = openaiClient(freeway, keyHeaders('groq'));
    expect(await client.audio.transcriptions.create({ file: await toFile(wav(30_000), 'a.wav'), model: 'groq/whisper-large-v3-turbo' })).to.deep.equal({ text: spoken });
  });
});

describe('transcriptions: settings', function () {
  it('AUDIO_MAX_BYTES above a fifth of BODY_BUFFER_MAX cannot start; the 25 MB default is lowered to a fifth of a smaller BODY_BUFFER_MAX', async function () {
    const { loadConfig } = await import('../../server/config/index.ts');
    const { providerPlugins } = await import('../support/plugins.ts');
    const plugins = await providerPlugins();
    expect(() => loadConfig({ AUDIO_MAX_BYTES: '300mb' }, plugins)).to.throw('BODY_BUFFER_MAX must be at least AUDIO_MAX_BYTES (300mb) 5 times over: an upload is held that many times while it is sent on');
    expect(() => loadConfig({ AUDIO_MAX_BYTES: '52mb' }, plugins)).to.throw('BODY_BUFFER_MAX must be at least AUDIO_MAX_BYTES (52mb) 5 times over');
    expect(loadConfig({ AUDIO_MAX_BYTES: '51mb' }, plugins).limits.audio).to.deep.equal({ bytes: 51 * 1024 ** 2, text: '51mb' });
    expect(() => loadConfig({ AUDIO_MAX_BYTES: 'big' }, plugins)).to.throw('AUDIO_MAX_BYTES must be a size such as 20mb, got "big"');
    expect(loadConfig({}, plugins).limits).to.deep.include({ audio: { bytes: 25 * 1024 ** 2, text: '25mb' }, embeddingsMaxInputs: 2048 });
    expect(loadConfig({ BODY_LIMIT: '1mb', BODY_BUFFER_MAX: '10mb' }, plugins).limits.audio).to.deep.equal({ bytes: 2 * 1024 ** 2, text: '2mb' });
    expect(loadConfig({ BODY_LIMIT: '1mb', BODY_BUFFER_MAX: '12mb' }, plugins).limits.audio).to.deep.equal({ bytes: 2457 * 1024, text: '2457kb' });
    expect(() => loadConfig({ EMBEDDINGS_MAX_INPUTS: '0' }, plugins)).to.throw(/EMBEDDINGS_MAX_INPUTS/);
  });
});

describe('transcriptions: a slow or malformed upload', function () {
  let freeway: RunningFreeway;
  before(async function () {
    freeway = await startFreeway({ env: { BODY_TIMEOUT_MS: '400' } });
  });
  after(async function () {
    await freeway.close();
  });

  it('an upload that stalls is a 408 after BODY_TIMEOUT_MS, and the connection closes', async function () {
    const { port } = new URL(freeway.url);
    const boundary = 'stall-boundary';
    // A raw socket: an HTTP client (or nock, when another suite left it active) may hold back a body that never ends.
    const socket = connect(Number(port), '127.0.0.1');
    await once(socket, 'connect');
    const keys = Object.entries(keyHeaders('groq')).map(([name, value]) => `${name}: ${value}\r\n`).join('');
    socket.write(`POST /v1/audio/transcriptions HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: multipart/form-data; boundary=${boundary}\r\nTransfer-Encoding: chunked\r\n${keys}\r\n`);
    // The start of a file part, then nothing more.
    const part = `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="a.wav"\r\nContent-Type: audio/wav\r\n\r\nRIFF`;
    socket.write(`${Buffer.byteLength(part).toString(16)}\r\n${part}\r\n`);
    let raw = '';
    socket.on('data', (chunk: Buffer) => (raw += chunk.toString()));
    await once(socket, 'close');
    const [head = '', body = ''] = raw.split('\r\n\r\n');
    expect(head).to.match(/^HTTP\/1\.1 408 /);
    expect(head.toLowerCase()).to.include('connection: close');
    expect(JSON.parse(body)).to.deep.equal({ error: { message: 'Request body not received within 0.4 s.', type: 'invalid_request_error', code: 408 } });
  });

  it('a multipart type without a boundary, or a body that breaks off, is a 400', async function () {
    const headers = keyHeaders('groq');
    const noBoundary = await fetch(`${freeway.url}/v1/audio/transcriptions`, { method: 'POST', headers: { 'content-type': 'multipart/form-data; charset=utf-8', ...headers }, body: 'x' });
    await expectError(noBoundary, 400, 'invalid_request_error', 'Validation failed: body: not a valid multipart/form-data body (no boundary)');
    const cut = await fetch(`${freeway.url}/v1/audio/transcriptions`, {
      method: 'POST',
      headers: { 'content-type': 'multipart/form-data; boundary=b', ...headers },
      body: '--b\r\nContent-Disposition: form-data; name="file"; filename="a.wav"\r\n\r\nRIFF',
    });
    await expectError(cut, 400, 'invalid_request_error', 'Validation failed: body: not a valid multipart/form-data body');
  });
});
