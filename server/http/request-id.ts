import { randomUUID } from 'node:crypto';
import type { RequestHandler } from 'express';
import type { Redactor } from '../core/redact.ts';

/** The longest incoming `X-Request-Id` kept; longer ones are cut to this. */
export const MAX_REQUEST_ID_LENGTH = 128;

const unsafe = /[^A-Za-z0-9._:@\/+=-]/g;

/**
 * Every request has an id: the caller's `X-Request-Id` (cut to 128 characters of
 * a safe set, key-shaped text redacted) or a new UUID. It goes back in the
 * `X-Request-Id` response header, on errors too, and onto the request's log line.
 */
export function requestId(redact: Redactor): RequestHandler {
  return (req, res, next) => {
    const sent = req.headers['x-request-id'];
    let id = typeof sent === 'string' ? redact(sent.slice(0, MAX_REQUEST_ID_LENGTH * 4).replace(unsafe, '')).slice(0, MAX_REQUEST_ID_LENGTH) : '';
    if (id === '') id = randomUUID();
    res.locals.requestId = id;
    res.setHeader('X-Request-Id', id);
    next();
  };
}
