import type { LanguageModelV4Message } from '@ai-sdk/provider';
import type { KeySet } from '../core/keys.ts';
import type { TextHasher } from '../state/key-hash.ts';

/**
 * One model per conversation. A conversation through an alias is its keys, its system prompt
 * and its first user turn: every later turn repeats them. Its id is an HMAC of those under
 * KEY_HASH_SECRET, so that nothing of the content (nor a plain hash of it) is kept.
 */

/** The pieces of a first user turn: its text, and what names its files. */
function* firstTurn(message: Extract<LanguageModelV4Message, { role: 'user' }>): Generator<string> {
  for (const part of message.content) {
    if (part.type === 'text') yield part.text;
    else if (part.data.type === 'text') yield part.data.text;
    else if (part.data.type === 'url') yield part.data.url.href;
    else if (part.data.type === 'data' && typeof part.data.data === 'string') yield part.data.data;
    else yield part.mediaType;
  }
}

function* pieces(target: string, keys: KeySet, prompt: readonly LanguageModelV4Message[], first: Extract<LanguageModelV4Message, { role: 'user' }>): Generator<string> {
  yield target;
  for (const provider of [...keys.keys()].sort()) {
    yield provider;
    yield* keys.get(provider) ?? [];
  }
  for (const message of prompt) if (message.role === 'system') yield message.content;
  yield* firstTurn(first);
}

/** A request's conversation: its id, and whether the request continues it (an earlier answer is in the prompt). */
export interface Conversation {
  readonly id: string;
  /** Only a later turn has a model to go back to; a first turn only keeps the model that answers it. */
  readonly laterTurn: boolean;
}

/** A request's conversation, or undefined for a prompt without a user turn. */
export function conversationOf(hash: TextHasher, { target, keys, prompt }: { readonly target: string; readonly keys: KeySet; readonly prompt: readonly LanguageModelV4Message[] }): Conversation | undefined {
  const first = prompt.find((message): message is Extract<LanguageModelV4Message, { role: 'user' }> => message.role === 'user');
  if (!first) return undefined;
  return { id: hash('conversation', pieces(target, keys, prompt, first)), laterTurn: prompt.some((message) => message.role === 'assistant' || message.role === 'tool') };
}
