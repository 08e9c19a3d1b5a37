import type { TranscriptFormat } from './request.ts';

/** A transcript as Freeway got it from any provider. */
export interface Transcript {
  readonly text: string;
  readonly segments: ReadonlyArray<{ readonly text: string; readonly startSecond: number; readonly endSecond: number }>;
  readonly language?: string;
  readonly durationInSeconds?: number;
}

/** `00:01:02,500` (SubRip) or `00:01:02.500` (WebVTT). */
function timestamp(seconds: number, separator: ',' | '.'): string {
  const ms = Math.max(0, Math.round(seconds * 1000));
  const pad = (value: number, width = 2): string => String(value).padStart(width, '0');
  return `${pad(Math.floor(ms / 3_600_000))}:${pad(Math.floor(ms / 60_000) % 60)}:${pad(Math.floor(ms / 1000) % 60)}${separator}${pad(ms % 1000, 3)}`;
}

/** The segments, or one spanning the whole audio when the provider sent none. */
function cues(transcript: Transcript): Transcript['segments'] {
  if (transcript.segments.length > 0) return transcript.segments;
  return [{ text: transcript.text, startSecond: 0, endSecond: transcript.durationInSeconds ?? 0 }];
}

/** The answer in the caller's `response_format`, with its content type, as OpenAI's API writes it. */
export function renderTranscript(transcript: Transcript, format: TranscriptFormat): { type: string; body: string } {
  switch (format) {
    case 'text':
      return { type: 'text/plain; charset=utf-8', body: `${transcript.text}\n` };
    case 'srt':
      return {
        type: 'text/plain; charset=utf-8',
        body: cues(transcript)
          .map((cue, i) => `${i + 1}\n${timestamp(cue.startSecond, ',')} --> ${timestamp(cue.endSecond, ',')}\n${cue.text.trim()}\n\n`)
          .join(''),
      };
    case 'vtt':
      return {
        type: 'text/plain; charset=utf-8',
        body: `WEBVTT\n\n${cues(transcript)
          .map((cue) => `${timestamp(cue.startSecond, '.')} --> ${timestamp(cue.endSecond, '.')}\n${cue.text.trim()}\n\n`)
          .join('')}`,
      };
    case 'verbose_json': {
      const body: Record<string, unknown> = { task: 'transcribe' };
      if (transcript.language !== undefined) body.language = transcript.language;
      if (transcript.durationInSeconds !== undefined) body.duration = transcript.durationInSeconds;
      body.text = transcript.text;
      body.segments = transcript.segments.map((segment, id) => ({ id, start: segment.startSecond, end: segment.endSecond, text: segment.text }));
      return { type: 'application/json; charset=utf-8', body: JSON.stringify(body) };
    }
    default:
      return { type: 'application/json; charset=utf-8', body: JSON.stringify({ text: transcript.text }) };
  }
}
