import type { TranscriptionCallExtras } from '../../../providers/types.ts';
import { fail, phrase } from '../validation.ts';
import type { MultipartBody } from '../../http/multipart-body.ts';

export type TranscriptFormat = 'json' | 'text' | 'srt' | 'verbose_json' | 'vtt';

/** An OpenAI transcription request, checked. */
export interface TranscriptionRequest {
  readonly model: string;
  readonly audio: Buffer;
  /** The IANA media type of the audio, from its extension or part type. */
  readonly mediaType: string;
  readonly format: TranscriptFormat;
  readonly extras: TranscriptionCallExtras;
}

/**
 * The formats Whisper takes (OpenAI's list, which Groq's docs repeat), by extension, with the
 * media type passed on to the provider.
 */
const audioTypes: ReadonlyMap<string, string> = new Map([
  ['flac', 'audio/flac'],
  ['m4a', 'audio/mp4'],
  ['mp3', 'audio/mpeg'],
  ['mp4', 'audio/mp4'],
  ['mpeg', 'audio/mpeg'],
  ['mpga', 'audio/mpeg'],
  ['oga', 'audio/ogg'],
  ['ogg', 'audio/ogg'],
  ['wav', 'audio/wav'],
  ['webm', 'audio/webm'],
]);

/** Part types clients send for those formats (browsers and SDKs differ), to the extension they mean. */
const partTypes: ReadonlyMap<string, string> = new Map([
  ['audio/flac', 'flac'],
  ['audio/x-flac', 'flac'],
  ['audio/mp4', 'm4a'],
  ['audio/m4a', 'm4a'],
  ['audio/x-m4a', 'm4a'],
  ['audio/mpeg', 'mp3'],
  ['audio/mp3', 'mp3'],
  ['video/mp4', 'mp4'],
  ['audio/ogg', 'ogg'],
  ['audio/wav', 'wav'],
  ['audio/x-wav', 'wav'],
  ['audio/wave', 'wav'],
  ['audio/webm', 'webm'],
  ['video/webm', 'webm'],
]);

const formats: readonly TranscriptFormat[] = ['json', 'text', 'srt', 'verbose_json', 'vtt'];

const FORMAT_DETAIL = `invalid file format. Supported formats: ${[...audioTypes.keys()].join(', ')}`;

function mediaTypeOf(name: string, type: string): string | undefined {
  const dot = name.lastIndexOf('.');
  const extension = dot === -1 ? '' : name.slice(dot + 1).toLowerCase();
  const byName = audioTypes.get(extension);
  if (byName) return byName;
  const byType = partTypes.get(type.toLowerCase());
  return byType ? audioTypes.get(byType) : undefined;
}

export function parseTranscriptionRequest(body: MultipartBody): TranscriptionRequest {
  const { fields, file } = body;
  if (!file) fail('file', 'required, the audio as a multipart file field');
  if (file.data.length === 0) fail('file', 'is empty');
  const mediaType = mediaTypeOf(file.name, file.type);
  if (!mediaType) fail('file', FORMAT_DETAIL);
  const model = fields.model;
  if (!model) fail('model', 'required');
  const format = (fields.response_format ?? 'json') as TranscriptFormat;
  if (!formats.includes(format)) fail('response_format', phrase.oneOf(formats));
  const extras: { -readonly [K in keyof TranscriptionCallExtras]: TranscriptionCallExtras[K] } = {};
  if (fields.language !== undefined && fields.language !== '') {
    if (!/^[a-z]{2,3}$/i.test(fields.language)) fail('language', 'an ISO-639-1 code such as "en"');
    extras.language = fields.language.toLowerCase();
  }
  if (fields.prompt !== undefined && fields.prompt !== '') extras.prompt = fields.prompt;
  if (fields.temperature !== undefined && fields.temperature !== '') {
    const temperature = Number(fields.temperature);
    if (!(temperature >= 0 && temperature <= 1)) fail('temperature', 'a number from 0 to 1');
    extras.temperature = temperature;
  }
  return { model, audio: file.data, mediaType, format, extras };
}
