import { APICallError, type TranscriptionModelV4, type TranscriptionModelV4CallOptions, type TranscriptionModelV4Result } from '@ai-sdk/provider';
import type { ModelFactoryOptions, TranscriptionModelSpec } from '../types.ts';
import { accountPlaceholder, withAccountInPath } from './account.ts';

/**
 * Workers AI's Whisper, run through `POST /accounts/{account_id}/ai/run/@cf/openai/whisper-large-v3-turbo`
 * (https://developers.cloudflare.com/workers-ai/models/whisper-large-v3-turbo/, checked 2026-11-25):
 * JSON `{audio: <base64>, language?, initial_prompt?}` in; `{result: {text, segments: [{start, end,
 * text}], transcription_info: {language, duration}}, success}` out. Workers AI states no file size;
 * Freeway holds it to Whisper's usual 25 MB.
 */
export const cloudflareTranscriptionModels: readonly TranscriptionModelSpec[] = [
  {
    id: '@cf/openai/whisper-large-v3-turbo',
    family: { id: 'whisper-large-v3-turbo', source: 'https://developers.cloudflare.com/workers-ai/models/whisper-large-v3-turbo/' },
    maxBytes: 25 * 1024 * 1024,
  },
];

interface WhisperAnswer {
  readonly result?: {
    readonly text?: unknown;
    readonly segments?: ReadonlyArray<{ readonly start?: unknown; readonly end?: unknown; readonly text?: unknown }>;
    readonly transcription_info?: { readonly language?: unknown; readonly duration?: unknown };
  };
}

/** The options Freeway passes under `providerOptions.cloudflare`. */
interface WhisperOptions {
  readonly language?: string;
  readonly prompt?: string;
}

function read(body: unknown): Omit<TranscriptionModelV4Result, 'warnings' | 'response'> {
  const result = (body as WhisperAnswer | null)?.result;
  if (!result || typeof result.text !== 'string') throw new Error('Workers AI answered without result.text');
  const segments = (result.segments ?? []).flatMap((segment) =>
    typeof segment.start === 'number' && typeof segment.end === 'number' && typeof segment.text === 'string'
      ? [{ text: segment.text, startSecond: segment.start, endSecond: segment.end }]
      : [],
  );
  const info = result.transcription_info;
  return {
    text: result.text,
    segments,
    language: typeof info?.language === 'string' ? info.language : undefined,
    durationInSeconds: typeof info?.duration === 'number' ? info.duration : undefined,
  };
}

export function createCloudflareTranscriptionModel({ modelId, baseURL, fetch }: ModelFactoryOptions): TranscriptionModelV4 {
  const send = withAccountInPath(fetch);
  const url = `${baseURL}${accountPlaceholder}ai/run/${modelId}`;
  return {
    specificationVersion: 'v4',
    provider: 'cloudflare.transcription',
    modelId,
    async doGenerate({ audio, headers, abortSignal, providerOptions }: TranscriptionModelV4CallOptions): Promise<TranscriptionModelV4Result> {
      const options = (providerOptions?.cloudflare ?? {}) as WhisperOptions;
      const input: Record<string, string> = { audio: typeof audio === 'string' ? audio : Buffer.from(audio.buffer, audio.byteOffset, audio.byteLength).toString('base64') };
      if (options.language) input.language = options.language;
      if (options.prompt) input.initial_prompt = options.prompt;
      const requestHeaders: Record<string, string> = { 'content-type': 'application/json' };
      for (const [name, value] of Object.entries(headers ?? {})) if (value !== undefined) requestHeaders[name] = value;
      const response = await send(url, { method: 'POST', headers: requestHeaders, body: JSON.stringify(input), signal: abortSignal });
      const text = await response.text();
      const responseHeaders = Object.fromEntries(response.headers);
      if (!response.ok) {
        throw new APICallError({ message: text.slice(0, 500) || response.statusText, url, requestBodyValues: {}, statusCode: response.status, responseHeaders, responseBody: text });
      }
      let body: unknown;
      try {
        body = JSON.parse(text);
      } catch {
        throw new APICallError({ message: 'Invalid JSON response', url, requestBodyValues: {}, statusCode: response.status, responseHeaders, responseBody: text });
      }
      return { ...read(body), warnings: [], response: { timestamp: new Date(), modelId, headers: responseHeaders, body } };
    },
  };
}
