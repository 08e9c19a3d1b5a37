import type { NextFunction, Request, Response } from 'express';
import { HttpError, invalidRequest } from './errors.ts';

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
    const encoding = req.headers['content-encoding'];
    const contentType = req.headers['content-type'];
    if ((encoding && encoding !== 'identity') || (contentType?.includes('charset=') && !/charset="?utf-?8/i.test(contentType))) {
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
