import { answerCollector, type Collected, type RoutedPart, type RoutedParts } from '../routing/index.ts';

/** What a streamed answer's writer hands the cache: each part as it goes, then that the stream ended. */
export interface StreamRecorder {
  take(part: RoutedPart): void;
  /** The stream ended after its finish: the whole answer is kept. */
  ended(): void;
}

/**
 * Records a routed stream as its writer reads it, with no stream of its own in between: the
 * whole answer is handed to `complete` once `ended` is called after the finish part, and never
 * otherwise. A stream that fails (an upstream error, a deadline) or that the writer gives up (the
 * caller gone or stalled) never calls `ended` and keeps nothing. An answer larger than `maxBytes`
 * is not kept.
 */
export function streamRecorder(maxBytes: number, complete: (answer: Collected) => void): StreamRecorder {
  const collector = answerCollector(maxBytes);
  let keeping = true;
  let finished = false;
  return {
    take(part) {
      if (part.type === 'finish') finished = true;
      if (!keeping) return;
      try {
        collector.take(part);
      } catch {
        keeping = false;
      }
    },
    ended() {
      if (keeping && finished) complete(collector.answer());
    },
  };
}

const TEXT_ID = 'txt-0';
const REASONING_ID = 'reasoning-0';

/** A kept answer's parts, in the order a routed stream has them: reasoning, text, tool calls, the finish. */
export function answerParts(answer: Collected): RoutedPart[] {
  const parts: RoutedPart[] = [];
  for (const item of answer.content) {
    const providerMetadata = item.providerMetadata;
    const meta = providerMetadata ? { providerMetadata } : {};
    switch (item.type) {
      case 'reasoning':
        parts.push({ type: 'reasoning-start', id: REASONING_ID, ...meta }, { type: 'reasoning-delta', id: REASONING_ID, delta: item.text }, { type: 'reasoning-end', id: REASONING_ID, ...meta });
        break;
      case 'text':
        // Log probabilities travel in raw chunks just before the text they belong to, as OpenAI-compatible upstreams send them.
        if (answer.logprobs) parts.push({ type: 'raw', rawValue: { choices: [{ logprobs: { content: answer.logprobs } }] } });
        parts.push({ type: 'text-start', id: TEXT_ID, ...meta }, { type: 'text-delta', id: TEXT_ID, delta: item.text }, { type: 'text-end', id: TEXT_ID, ...meta });
        break;
      case 'tool-call':
        parts.push({ type: 'tool-input-start', id: item.toolCallId, toolName: item.toolName });
        if (item.input !== '') parts.push({ type: 'tool-input-delta', id: item.toolCallId, delta: item.input });
        parts.push({ type: 'tool-input-end', id: item.toolCallId, toolName: item.toolName, input: item.input, ...meta });
        break;
    }
  }
  parts.push({ type: 'finish', finishReason: answer.finishReason, usage: answer.usage });
  return parts;
}

/** A kept answer as routed parts, read at the caller's pace. */
export function replayParts(answer: Collected): RoutedParts {
  const parts = answerParts(answer);
  let next = 0;
  return {
    read() {
      const value = parts[next++];
      return Promise.resolve(value === undefined ? { done: true, value: undefined } : { done: false, value });
    },
    async cancel() {
      next = parts.length;
    },
  };
}
