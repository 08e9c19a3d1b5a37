import type { Express, Response } from 'express';

/**
 * `res.json` for this app, without the per-call work of Express's own that
 * Freeway's answers never use: its content type is parsed and written again to
 * add the charset, app settings are looked up for a replacer and spacing that
 * Freeway does not set, and the request's freshness is read for an ETag that
 * Freeway turns off. Answers Express treats specially (HEAD, 204, 304, a
 * conditional GET, a content type already chosen, nothing to stringify) still
 * go through Express's own `res.json`, so every answer reads as before.
 */
export function leanJson(app: Express): void {
  const expressJson = app.response.json;
  app.response.json = function json(this: Response, body: unknown): Response {
    const req = this.req;
    const status = this.statusCode;
    if (req.method === 'HEAD' || status === 204 || status === 304 || this.hasHeader('content-type') || req.headers['if-none-match'] !== undefined || req.headers['if-modified-since'] !== undefined) {
      return expressJson.call(this, body);
    }
    const text = JSON.stringify(body) as string | undefined;
    if (text === undefined) return expressJson.call(this, body);
    this.setHeader('Content-Type', 'application/json; charset=utf-8');
    this.setHeader('Content-Length', Buffer.byteLength(text));
    this.end(text);
    return this;
  };
}
