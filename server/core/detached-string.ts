/**
 * A copy of `text` that shares no memory with the string it was cut from.
 *
 * V8 keeps a substring of 13 or more characters as a view into its parent, so a
 * 14-character client address cut out of a 14 KB X-Forwarded-For header, or the
 * first 300 characters of a 16 MB error body, would keep the whole parent alive
 * for as long as the substring is kept: a rate-limit window lives 5 minutes, a
 * health record an hour. Whatever Freeway keeps past the request that brought it
 * goes through here. The copy costs about 0.2 µs for an address.
 */
export function detachedString(text: string): string {
  return Buffer.from(text, 'utf8').toString('utf8');
}
