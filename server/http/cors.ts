import cors from 'cors';
import type { RequestHandler } from 'express';

export interface CorsSettings {
  /** CORS_ORIGINS: any origin, or these. */
  readonly origins: '*' | readonly string[];
  readonly methods: readonly string[];
  readonly exposedHeaders: readonly string[];
  /** How long a browser may keep a preflight's answer, in seconds. */
  readonly maxAge: number;
}

/**
 * CORS headers: preflights (OPTIONS) are answered by the `cors` package; every
 * other request from a browser (one with an Origin) gets the same headers it would
 * write (the allowed origin, `Vary: Origin` when origins are listed, the exposed
 * headers), made once here rather than rebuilt from the options on every request.
 */
export function corsHeaders({ origins, methods, exposedHeaders, maxAge }: CorsSettings): RequestHandler {
  // No allowedHeaders: a preflight is allowed the headers it asks for (see app.ts).
  const preflight = cors({ origin: origins === '*' ? '*' : [...origins], methods: [...methods], exposedHeaders: [...exposedHeaders], maxAge });
  const exposed = exposedHeaders.join(',');
  const anyOrigin = origins === '*';
  const allowed = new Set<string>(anyOrigin ? [] : origins);
  return (req, res, next) => {
    if (req.method === 'OPTIONS') {
      preflight(req, res, next);
      return;
    }
    const origin = req.headers.origin;
    // A browser sends Origin with every cross-origin request, and reads CORS headers only then:
    // the SDKs, agents and curl that make most calls send none, and get none. A GET's answer
    // says it varies by Origin, so that a cache does not hand it to a browser.
    if (origin === undefined) {
      if (req.method === 'GET') res.vary('Origin');
      next();
      return;
    }
    if (anyOrigin) res.setHeader('Access-Control-Allow-Origin', '*');
    else {
      if (allowed.has(origin)) res.setHeader('Access-Control-Allow-Origin', origin);
      res.vary('Origin');
    }
    if (exposed !== '') res.setHeader('Access-Control-Expose-Headers', exposed);
    next();
  };
}
