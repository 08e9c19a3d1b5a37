import busboy from 'busboy';
import type { NextFunction, Request, Response } from 'express';
import { UPLOAD_COPIES } from '../config/index.ts';
import { bodyBudgetFull, bodyTimedOut, type BodyBudget } from './json-body.ts';
import { freewayError, invalidField, type HttpError } from '../core/errors.ts';

/** One uploaded file, held in memory (never on disk) until the answer is sent. */
export interface UploadedFile {
  /** The file name the client gave, as it gave it; used only for its extension. */
  readonly name: string;
  /** The part's Content-Type as the client sent it. */
  readonly type: string;
  readonly data: Buffer;
}

/** A multipart body as read: its text fields and its one file. */
export interface MultipartBody {
  readonly fields: Readonly<Record<string, string>>;
  readonly file: UploadedFile | undefined;
}

export interface MultipartOptions {
  /** The file field's name (`file`). */
  readonly fileField: string;
  /** AUDIO_MAX_BYTES: the largest file. */
  readonly maxFileBytes: number;
  /** As written, for messages (`25mb`). */
  readonly maxFileText: string;
  /** Text fields at most, and bytes of one text field at most. */
  readonly maxFields: number;
  readonly maxFieldBytes: number;
  /** BODY_TIMEOUT_MS: the whole body, from the end of the headers. */
  readonly timeoutMs: number;
  /** BODY_BUFFER_MAX, shared with every other route that reads a body. */
  readonly budget: BodyBudget;
}

/** Room for the parts' headers and the text fields beside the file. */
const ENVELOPE_BYTES = 64 * 1024;

/**
 * Reads a `multipart/form-data` body with busboy, streaming: text fields (bounded in count
 * and size) and one file (bounded by `maxFileBytes`), whose bytes are held in memory within
 * the shared BODY_BUFFER_MAX budget until the answer is sent, so that failover can send the
 * file again; the file counts UPLOAD_COPIES times, for the copies made while it is sent on. Nothing is written to disk. A refused body is read to its end (up to twice the
 * limit) before the answer, as JSON bodies are, so that a client still uploading gets the
 * error rather than a broken connection.
 */
export function multipartBody(options: MultipartOptions) {
  const { fileField, maxFileBytes, maxFields, maxFieldBytes, timeoutMs, budget } = options;
  const readAtMost = (maxFileBytes + ENVELOPE_BYTES) * 2;
  const timedOut = (): HttpError => bodyTimedOut(timeoutMs);
  const busy = bodyBudgetFull;
  const tooLarge = (): HttpError => freewayError('FREEWAY_FILE_TOO_LARGE', { field: fileField, setting: 'AUDIO_MAX_BYTES', limit: options.maxFileText });

  return (req: Request, res: Response, next: NextFunction): void => {
    const expectsContinue = req.headers.expect?.toLowerCase() === '100-continue';
    const contentType = req.headers['content-type'] ?? '';
    if (!/^multipart\/form-data\s*;/i.test(contentType)) {
      if (expectsContinue) res.setHeader('Connection', 'close');
      next(invalidField('body', `must be multipart/form-data with the audio in a "${fileField}" field`));
      return;
    }
    const declared = req.headers['content-length'] === undefined ? undefined : Number(req.headers['content-length']);
    let parser: busboy.Busboy;
    try {
      parser = busboy({
        headers: req.headers,
        limits: { fileSize: maxFileBytes, files: 1, fields: maxFields, fieldSize: maxFieldBytes, parts: maxFields + 1, fieldNameSize: 100, headerPairs: 20 },
      });
    } catch {
      next(invalidField('body', 'not a valid multipart/form-data body (no boundary)'));
      return;
    }

    const fields: Record<string, string> = Object.create(null) as Record<string, string>;
    const chunks: Buffer[] = [];
    let fileBytes = 0;
    let reserved = 0;
    let file: { name: string; type: string } | undefined;
    let seen = 0;
    let refusal: HttpError | undefined;
    let done = false;

    const release = (): void => {
      budget.release(reserved);
      reserved = 0;
      chunks.length = 0;
    };
    const stop = (): void => {
      done = true;
      clearTimeout(timer);
      req.off('data', count);
      req.unpipe(parser);
    };
    const fail = (error: HttpError, close: boolean): void => {
      if (done) return;
      stop();
      release();
      req.resume();
      if (close) res.setHeader('Connection', 'close');
      next(error);
    };
    /** From here on the rest of the body is read and dropped; the answer is `error`. */
    const refuse = (error: HttpError): void => {
      if (refusal) return;
      refusal = error;
      release();
      if (declared !== undefined && declared > readAtMost) fail(error, true);
    };
    function count(chunk: Buffer): void {
      seen += chunk.length;
      if (refusal && seen > readAtMost) fail(refusal, true);
    }

    parser.on('field', (name, value, info) => {
      if (refusal) return;
      if (info.valueTruncated) refuse(invalidField(name.slice(0, 100), `longer than ${maxFieldBytes} bytes`));
      else fields[name] = value;
    });
    parser.on('file', (name, stream, info) => {
      if (name !== fileField || refusal) {
        stream.on('error', () => {});
        if (!refusal && name !== fileField) refuse(invalidField(name.slice(0, 100), `unexpected file field; send the audio as "${fileField}"`));
        stream.resume();
        return;
      }
      // A body that breaks off errors the file stream too; the parser's own error answers it.
      stream.on('error', () => {});
      file = { name: info.filename ?? '', type: info.mimeType };
      stream.on('data', (chunk: Buffer) => {
        if (refusal) return;
        if (!budget.reserve(chunk.length)) {
          refuse(busy());
          return;
        }
        reserved += chunk.length;
        fileBytes += chunk.length;
        chunks.push(chunk);
      });
      stream.on('limit', () => refuse(tooLarge()));
    });
    parser.on('filesLimit', () => refuse(invalidField('body', `one file at most, in "${fileField}"`)));
    parser.on('fieldsLimit', () => refuse(invalidField('body', `more than ${maxFields} fields`)));
    parser.on('partsLimit', () => refuse(invalidField('body', `more than ${maxFields + 1} parts`)));
    parser.on('error', () => {
      // A malformed body: the parser cannot tell where it ends, so the connection cannot carry another request.
      fail(refusal ?? invalidField('body', 'not a valid multipart/form-data body'), true);
    });
    parser.on('close', () => {
      if (done) return;
      if (refusal) {
        fail(refusal, true);
        return;
      }
      // Sending the file on copies it (the provider's form or JSON, a failover's retry): the copies count too.
      const copies = fileBytes * (UPLOAD_COPIES - 1);
      if (!budget.reserve(copies)) {
        fail(busy(), false);
        return;
      }
      reserved += copies;
      stop();
      const data = chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks, fileBytes);
      const body: MultipartBody = { fields, file: file ? { ...file, data } : undefined };
      chunks.length = 0;
      req.body = body;
      // The file stays in memory until the answer is out (failover may send it again).
      const held = reserved;
      res.once('close', () => budget.release(held));
      reserved = 0;
      next();
    });

    const timer = setTimeout(() => fail(refusal ?? timedOut(), true), timeoutMs);
    if (declared !== undefined && declared > readAtMost) refuse(tooLarge());
    if (expectsContinue) {
      if (refusal) {
        fail(refusal, true);
        return;
      }
      res.writeContinue();
    }
    if (done) return;
    req.on('data', count);
    req.pipe(parser);
    req.once('close', () => {
      if (!done) {
        stop();
        release();
      }
    });
  };
}
