import type { LanguageModelV4Message } from '@ai-sdk/provider';
import type { KeySet } from '../core/keys.ts';
import type { TextHasher } from '../state/key-hash.ts';

/**
 * One model per conversation. A conversation through an alias is its keys, its system prompt
 * and its first user turn: every later turn repeats them. Its id is an HMAC of those under
 * KEY_HASH_SECRET, so that nothing of the content (nor a plain hash of it) is kept.
 */

/** The pieces of a conversation's id, in order: the target, each provider (sorted) with its keys, the system prompt, the first user turn's text and what names its files. */
function pieces(target: string, keys: KeySet, prompt: readonly LanguageModelV4Message[], first: Extract<LanguageModelV4Message, { role: 'user' }>): string[] {
  const out = [target];
  const providers = keys.size === 1 ? keys.keys() : [...keys.keys()].sort();
  for (const provider of providers) out.push(provider, ...(keys.get(provider) ?? []));
  for (const message of prompt) if (message.role === 'system') out.push(message.content);
  for (const part of first.content) {
    if (part.type === 'text') out.push(part.text);
    else if (part.data.type === 'text') out.push(part.data.text);
    else if (part.data.type === 'url') out.push(part.data.url.href);
    else if (part.data.type === 'data' && typeof part.data.data === 'string') out.push(part.data.data);
    else out.push(part.mediaType);
  }
  return out;
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
