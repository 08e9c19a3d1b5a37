import { pino, type DestinationStream, type Logger } from 'pino';
import { sanitizeForLog } from '../core/redact.ts';

/* The process's logger: pino on stdout (or a given destination), and the exit that waits for its last lines. */

/**
 * Serializers are the only way objects reach a log line, and none of them
 * lets a header value, a body or an unredacted path through.
 */
const serializers = {
  err(error: unknown) {
    if (!(error instanceof Error)) return { message: sanitizeForLog(String(error)) };
    return { type: error.name, message: sanitizeForLog(error.message) };
  },
};

export function createLogger(level: string, destination?: DestinationStream): Logger {
  return pino({ level, base: undefined, serializers }, destination ?? pino.destination({ sync: false }));
}

/**
 * Freeway's own logger on stdout: JSON lines, or pino-pretty's readable lines
 * for a terminal. If stdout goes away (a pipe whose reader exited), logging
 * stops instead of buffering without bound or holding up shutdown.
 */
export async function createStdoutLogger(level: string, format: 'json' | 'pretty'): Promise<Logger> {
  if (format === 'pretty') {
    const { default: pretty } = await import('pino-pretty');
    const stream = pretty({ destination: 1, sync: false, translateTime: 'SYS:HH:MM:ss.l', ignore: 'hostname' });
    const logger = createLogger(level, stream);
    stream.on('error', () => silence(logger));
    return logger;
  }
  const destination = pino.destination({ sync: false, minLength: STDOUT_BUFFER_BYTES, periodicFlush: STDOUT_FLUSH_MS });
  const logger = createLogger(level, destination);
  destination.on('error', () => silence(logger));
  return logger;
}

/**
 * JSON lines go to stdout in writes of about 4 kB (some 20 request lines), and at
 * least every 100 ms: a write per line cost about 15 µs of CPU (the write handed
 * to a thread and its callback), a tenth of what Freeway adds to a request. A line
 * waits at most 100 ms; exitAfterFlush writes what is left before the process exits.
 */
const STDOUT_BUFFER_BYTES = 4096;
const STDOUT_FLUSH_MS = 100;

const broken = new WeakSet<Logger>();

function silence(logger: Logger): void {
  broken.add(logger);
  logger.level = 'silent';
}

/** How long an exiting process waits for its last log lines to be written. */
const flushTimeoutMs = 1_000;

/** Writes what is buffered, then exits; never waits on a stdout that cannot take it. */
export function exitAfterFlush(logger: Logger, code: number): void {
  process.exitCode = code;
  if (broken.has(logger)) process.exit(code);
  setTimeout(() => process.exit(code), flushTimeoutMs).unref();
  try {
    logger.flush(() => process.exit(code));
  } catch {
    process.exit(code);
  }
}
