import type { TranscriptionModelV4 } from '@ai-sdk/provider';
import type { JSONObject } from '@ai-sdk/provider';
import type { ModelFactoryOptions, TranscriptionCallExtras, TranscriptionModelSpec } from '../types.ts';

/**
 * Groq's OpenAI-compatible `POST /openai/v1/audio/transcriptions`
 * (https://console.groq.com/docs/speech-to-text, checked 2026-11-25): `whisper-large-v3-turbo`
 * and `whisper-large-v3`, files of at most 25 MB on the free tier, flac, mp3, mp4, mpeg, mpga,
 * m4a, ogg, wav or webm. Freeway always asks for `verbose_json` with segment timestamps and
 * writes the caller's `response_format` itself, so every provider answers every format alike.
 */
export const groqTranscriptionModels: readonly TranscriptionModelSpec[] = [
  {
    id: 'whisper-large-v3-turbo',
    family: { id: 'whisper-large-v3-turbo', source: 'https://console.groq.com/docs/speech-to-text' },
    maxBytes: 25 * 1024 * 1024,
  },
  {
    id: 'whisper-large-v3',
    family: { id: 'whisper-large-v3', source: 'https://console.groq.com/docs/speech-to-text' },
    maxBytes: 25 * 1024 * 1024,
  },
];

/** @ai-sdk/groq's own option names. */
export function groqTranscriptionOptions({ language, prompt, temperature }: TranscriptionCallExtras): JSONObject {
  const options: JSONObject = { responseFormat: 'verbose_json', timestampGranularities: ['segment'] };
  if (language !== undefined) options.language = language;
  if (prompt !== undefined) options.prompt = prompt;
  if (temperature !== undefined) options.temperature = temperature;
  return options;
}

/** The SDK insists on a key at construction; every call's authHeaders replace it. */
export async function createGroqTranscriptionModel({ modelId, baseURL, fetch }: ModelFactoryOptions): Promise<TranscriptionModelV4> {
  const { createGroq } = await import('@ai-sdk/groq');
  return createGroq({ apiKey: 'per-request', baseURL, fetch }).transcription(modelId);
}
