import type { NextFunction, Request, Response } from 'express';
import { freewayError, invalidField, type HttpError } from '../core/errors.ts';

/** No Content-Encoding, or `identity` in any case, as body-parser accepts. */
function isIdentity(encoding: string | undefined): boolean {
  return !encoding || encoding.trim().toLowerCase() === 'identity';
}

/** A Content-Type without a charset, or with exactly one that is UTF-8 (`utf-8`, `utf8`, quoted or not, any case). */
function isUtf8(contentType: string | undefined): boolean {
  if (contentType === undefined) return true;
  let charset: string | undefined;
  let at = contentType.indexOf(';');
  while (at !== -1) {
    const next = contentType.indexOf(';', at + 1);
    const param = contentType.slice(at + 1, next === -1 ? undefined : next);
    const eq = param.indexOf('=');
    if (eq !== -1 && param.slice(0, eq).trim().toLowerCase() === 'charset') {
      // Two charsets are ambiguous: which one did the client mean?
      if (charset !== undefined) return false;
      charset = param.slice(eq + 1).trim().replace(/^"(.*)"$/, '$1').toLowerCase();
    }
    at = next;
  }
  return charset === undefined || charset === 'utf-8' || charset === 'utf8';
}

/** Request body bytes held in memory across all requests at once, bounded by BODY_BUFFER_MAX. */
export interface BodyBudget {
  readonly used: number;
  /** Takes `bytes` from the budget, or returns false (taking nothing) when they do not fit. */
  reserve(bytes: number): boolean;
  release(bytes: number): void;
}

export function createBodyBudget(maxBytes: number): BodyBudget {
  let used = 0;
  return {
    get used() {
      return used;
    },
    reserve(bytes) {
      if (used + bytes > maxBytes) return false;
      used += bytes;
      return true;
    },
    release(bytes) {
      used = Math.max(0, used - bytes);
    },
  };
}

export interface BodyOptions {
  /** BODY_LIMIT in bytes, and as written (`20mb`) for messages. */
  readonly limitBytes: number;
  readonly limitText: string;
  /** BODY_TIMEOUT_MS: the whole body, from the end of the headers. */
  readonly timeoutMs: number;
  /** Shared by every route that reads a body. */
  readonly budget: BodyBudget;
}

/** What a 503 for a full body budget asks the client to wait. */
const BUSY_RETRY_AFTER_SECONDS = 2;

const seconds = (ms: number): string => String(Math.round(ms / 10) / 100);

/** The 503 for a body that does not fit BODY_BUFFER_MAX beside those being received. */
export const bodyBudgetFull = (): HttpError =>
  freewayError('FREEWAY_BODIES_BUSY', {}, { headers: { 'Retry-After': String(BUSY_RETRY_AFTER_SECONDS) } });

/** The 408 for a body not received within BODY_TIMEOUT_MS. */
export const bodyTimedOut = (timeoutMs: number): HttpError => freewayError('FREEWAY_BODY_TIMEOUT', { seconds: seconds(timeoutMs) });

/**
 * Reads a JSON request body, whatever its content type (curl's -d sends a
 * form type). Smaller than body-parser by everything Freeway does not need:
 * compressed bodies and other charsets are refused, an empty body reads as {}.
 *
 * Bounded like the rest of Freeway: one body by BODY_LIMIT, all bodies held
 * at once by the budget (a declared Content-Length is reserved up front), and
 * the time to receive one by BODY_TIMEOUT_MS. A refused body (too large, or no
 * room) is read and dropped, as body-parser does, so that the client, still
 * uploading, gets the JSON error rather than a broken connection; but only up
 * to another BODY_LIMIT, and the connection closes after the answer.
 */
export function jsonBody({ limitBytes, limitText, timeoutMs, budget }: BodyOptions) {
  const tooLarge = (): HttpError => freewayError('FREEWAY_BODY_TOO_LARGE', { limit: limitText });
  const busy = bodyBudgetFull;
  const timedOut = (): HttpError => bodyTimedOut(timeoutMs);
  /** Bytes of one request read at most, counting what is dropped. */
  const readAtMost = limitBytes * 2;

  return (req: Request, res: Response, next: NextFunction): void => {
    // Expect: 100-continue (curl's way with bodies over 1 MB): the client waits for
    // a go-ahead, which Freeway's server leaves to this reader (http/server.ts).
    const expectsContinue = req.headers.expect?.toLowerCase() === '100-continue';
    if (!isIdentity(req.headers['content-encoding']) || !isUtf8(req.headers['content-type'])) {
      // A client told nothing yet sends nothing more: this connection cannot carry another request.
      if (expectsContinue) res.setHeader('Connection', 'close');
      next(freewayError('FREEWAY_BODY_ENCODING'));
      return;
    }
    // Node's parser has already refused a Content-Length that is not a number.
    const declared = req.headers['content-length'] === undefined ? undefined : Number(req.headers['content-length']);
    const chunks: Buffer[] = [];
    let size = 0;
    let seen = 0;
    let reserved = 0;
    /** Set once the body is refused: the rest is dropped and this is the answer. */
    let refusal: HttpError | undefined;
    let done = false;

    const free = (): void => {
      budget.release(reserved);
      reserved = 0;
      chunks.length = 0;
    };
    const stop = (): void => {
      done = true;
      clearTimeout(timer);
      free();
      req.off('data', onData);
      req.off('end', onEnd);
    };
    /** Answers with `error`; `close` when the connection cannot be trusted to carry another request. */
    const fail = (error: HttpError, close: boolean): void => {
      if (done) return;
      stop();
      if (close) res.setHeader('Connection', 'close');
      next(error);
    };
    const refuse = (error: HttpError): void => {
      refusal = error;
      free();
      // The client would send more than is worth reading: answer now.
      if (declared !== undefined && declared > readAtMost) fail(error, true);
    };

    function onData(chunk: Buffer): void {
      seen += chunk.length;
      if (refusal) {
        if (seen > readAtMost) fail(refusal, true);
        return;
      }
      size += chunk.length;
      if (size > limitBytes) {
        refuse(tooLarge());
        return;
      }
      if (declared === undefined) {
        if (!budget.reserve(chunk.length)) {
          refuse(busy());
          return;
        }
        reserved += chunk.length;
      }
      chunks.push(chunk);
    }

    function onEnd(): void {
      if (done) return;
      if (refusal) {
        fail(refusal, true);
        return;
      }
      let body: unknown = {};
      if (size > 0) {
        try {
          body = JSON.parse((chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks, size)).toString('utf8'));
        } catch {
          fail(invalidField('body', 'not valid JSON'), false);
          return;
        }
      }
      stop();
      req.body = body;
      next();
    }

    const timer = setTimeout(() => fail(refusal ?? timedOut(), true), timeoutMs);
    if (declared !== undefined) {
      if (declared > limitBytes) refuse(tooLarge());
      else if (budget.reserve(declared)) reserved = declared;
      else refuse(busy());
    }
    if (expectsContinue) {
      // Refused before the client sent anything: answer at once, and it need not upload at all.
      if (refusal) fail(refusal, true);
      else res.writeContinue();
    }
    if (done) return;
    req.on('data', onData);
    req.on('end', onEnd);
    // A client that goes away: nobody to answer, but the budget and the timer are freed.
    req.once('close', () => {
      if (!done) stop();
    });
    req.once('error', () => {
      if (!done) stop();
    });
  };
}
