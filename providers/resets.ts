import { parseDuration } from './quota.ts';

const DAY_MS = 86_400_000;
const retryHint = /(?:try again|retry) in ((?:\d+(?:\.\d+)?(?:ms|h|m|s))+)/i;
const seconds = /^\d+(?:\.\d+)?$/;
const zoneFormats = new Map<string, Intl.DateTimeFormat>();

/** How far `timeZone` is ahead of UTC at `at`, in ms (negative west of Greenwich). */
function zoneOffset(timeZone: string, at: number): number {
  let format = zoneFormats.get(timeZone);
  if (!format) {
    format = new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
    zoneFormats.set(timeZone, format);
  }
  const parts: Record<string, number> = {};
  for (const part of format.formatToParts(at)) if (part.type !== 'literal') parts[part.type] = Number(part.value);
  const local = Date.UTC(parts.year ?? 0, (parts.month ?? 1) - 1, parts.day ?? 1, parts.hour ?? 0, parts.minute ?? 0, parts.second ?? 0);
  return local - Math.floor(at / 1000) * 1000;
}

/** The next midnight in `timeZone` after `now`, as epoch ms (daylight saving time included). */
export function nextMidnight(timeZone: string, now: number): number {
  const offset = zoneOffset(timeZone, now);
  const localMidnight = Math.floor((now + offset) / DAY_MS) * DAY_MS + DAY_MS;
  // The offset at midnight itself, which differs from now's on the night the clocks change.
  return localMidnight - zoneOffset(timeZone, localMidnight - offset);
}

/** The next 00:00 UTC after `now`. */
export function nextUtcMidnight(now: number): number {
  return Math.floor(now / DAY_MS) * DAY_MS + DAY_MS;
}

/**
 * The moment a `try again in <duration>` hint in a body points at (`2m59.56s`,
 * `1h2m3s`, `450ms`, `20.5s`), or undefined when the body has none.
 */
export function retryHintAt(body: string, now: number): number | undefined {
  const match = retryHint.exec(body);
  if (!match?.[1]) return undefined;
  const ms = parseDuration(match[1]);
  return ms === undefined ? undefined : Math.round(now + ms);
}

/** A header's value as seconds from now (`retry-after: 120`), as the moment it points at. */
export function secondsHeaderAt(headers: Readonly<Record<string, string>>, name: string, now: number): number | undefined {
  const raw = headers[name];
  if (raw === undefined || !seconds.test(raw.trim())) return undefined;
  return Math.round(now + Number(raw) * 1000);
}
