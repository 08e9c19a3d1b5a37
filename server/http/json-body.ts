import type { NextFunction, Request, Response } from 'express';
import { HttpError, invalidRequest } from './errors.ts';

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

/**
 * Reads a JSON request body, whatever its content type (curl's -d sends a
 * form type). Smaller than body-parser by everything Freeway does not need:
 * compressed bodies and other charsets are refused, an empty body reads as {}.
 */
export function jsonBody(limitBytes: number, limitText: string) {
  const tooLarge = (): HttpError => invalidRequest(`Request body larger than ${limitText}.`, 413);
  return (req: Request, res: Response, next: NextFunction): void => {
    const declared = req.headers['content-length'];
    if (declared !== undefined && Number(declared) > limitBytes) {
      // Not reading the rest: the connection closes after the answer.
      res.setHeader('Connection', 'close');
      next(tooLarge());
      return;
    }
    if (!isIdentity(req.headers['content-encoding']) || !isUtf8(req.headers['content-type'])) {
      next(new HttpError(415, 'invalid_request_error', 'Request body must be uncompressed UTF-8 JSON.'));
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    let failed = false;
    req.on('data', (chunk: Buffer) => {
      if (failed) return;
      size += chunk.length;
      if (size > limitBytes) {
        failed = true;
        res.setHeader('Connection', 'close');
        next(tooLarge());
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => {
      if (failed) return;
      if (size === 0) {
        req.body = {};
        next();
        return;
      }
      try {
        req.body = JSON.parse((chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks, size)).toString('utf8'));
      } catch {
        next(invalidRequest('Validation failed: body: not valid JSON'));
        return;
      }
      next();
    });
  };
}
