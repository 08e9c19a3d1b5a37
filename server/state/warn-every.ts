import type { Logger } from 'pino';

/** A warning about `topic`, logged at most once per period so that an outage does not flood the log. */
export type Warn = (topic: string, message: string, error?: unknown) => void;

export function createThrottledWarn(logger: Logger, everyMs = 10_000): Warn {
  const topics = new Map<string, { at: number; heldBack: number }>();
  return (topic, message, error) => {
    const now = Date.now();
    const seen = topics.get(topic);
    if (seen && now - seen.at < everyMs) {
      seen.heldBack += 1;
      return;
    }
    const fields: { err?: unknown; heldBack?: number } = {};
    if (error !== undefined) fields.err = error;
    // How many of the same warning were swallowed since the last one.
    if (seen && seen.heldBack > 0) fields.heldBack = seen.heldBack;
    topics.set(topic, { at: now, heldBack: 0 });
    logger.warn(fields, message);
  };
}
