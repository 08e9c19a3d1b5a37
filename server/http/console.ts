import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { RequestHandler } from 'express';

/*
 * The web console: static files in the package's `console/` folder (a page, its
 * style, its ES modules, no build step), read once at start-up and served from memory. The page loads nothing from anywhere
 * else, and its policy forbids it: no inline script or style, no framing.
 */

/** The page's ES modules: console.js starts the page and imports the others. */
export const CONSOLE_MODULES = ['console.js', 'shared.js', 'keys.js', 'connect.js', 'playground.js', 'apis.js', 'models.js', 'usage.js', 'health.js'] as const;

/** The page, then the files it loads (served under the console's route, `/console/{file}`). */
const page = ['index.html', 'text/html; charset=utf-8'] as const;
const files: ReadonlyArray<readonly [file: string, type: string]> = [
  ...CONSOLE_MODULES.map((file) => [file, 'text/javascript; charset=utf-8'] as const),
  ['console.css', 'text/css; charset=utf-8'],
  ['icon.svg', 'image/svg+xml'],
];

export const CONSOLE_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self'",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "object-src 'none'",
  "frame-ancestors 'none'",
].join('; ');

/** From source the folder is ../console; from the build (dist/server/http) ../../../console. */
function consoleDir(): string {
  for (const relative of ['../../console/', '../../../console/']) {
    const dir = fileURLToPath(new URL(relative, import.meta.url));
    if (existsSync(`${dir}index.html`)) return dir;
  }
  throw new Error('the console files (console/index.html) are missing from the package; set CONSOLE=off to run without them');
}

/** A handler that answers with one file, read now, under the console's policy. */
function fileHandler(dir: string, [file, type]: readonly [string, string]): RequestHandler {
  const body = readFileSync(dir + file);
  return (_req, res) => {
    res.setHeader('Content-Type', type);
    res.setHeader('Content-Security-Policy', CONSOLE_POLICY);
    res.setHeader('X-Content-Type-Options', 'nosniff');
    res.setHeader('X-Frame-Options', 'DENY');
    res.setHeader('Referrer-Policy', 'no-referrer');
    res.setHeader('Cache-Control', 'no-cache');
    res.end(body);
  };
}

/** The console's page, and its files by name (any other name goes on to the 404), read once. */
export function consoleHandlers(): { readonly page: RequestHandler; readonly file: RequestHandler } {
  const dir = consoleDir();
  const byName = new Map(files.map((entry) => [entry[0], fileHandler(dir, entry)]));
  return {
    page: fileHandler(dir, page),
    file: (req, res, next) => {
      const segments = (req.params as Record<string, string | string[]>).file;
      const handler = byName.get(Array.isArray(segments) ? segments.join('/') : String(segments));
      if (handler === undefined) next();
      else handler(req, res, next);
    },
  };
}
