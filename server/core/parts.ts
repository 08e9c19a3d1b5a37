import type { LanguageModelV4FinishReason, LanguageModelV4StreamPart } from '@ai-sdk/provider';

/** What every client API's stream needs to know about the AI SDK's stream parts. */

/** True for parts that show the upstream has really started answering. */
export function isFirstOutput(part: LanguageModelV4StreamPart): boolean {
  switch (part.type) {
    case 'text-delta':
    case 'reasoning-delta':
      return part.delta !== '';
    case 'tool-input-start':
    case 'tool-call':
    case 'finish':
      return true;
    default:
      return false;
  }
}

export class StreamInterrupted extends Error {
  override readonly name = 'StreamInterrupted';
}

/** A stream that stopped without the provider's end marker is a failure, never a silent truncation. */
export function assertFinished(reason: LanguageModelV4FinishReason): void {
  if (reason.unified === 'interrupted') throw new StreamInterrupted('the upstream stream ended before it finished');
}

