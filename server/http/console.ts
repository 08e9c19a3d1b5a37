import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Express, RequestHandler } from 'express';

/*
 * The web console: static files in the package's `console/` folder (a page, its
 * style, its ES modules, no build step), read once at start-up and served from memory. The page loads nothing from anywhere
 * else, and its policy forbids it: no inline script or style, no framing.
 */

/** The page's ES modules: console.js starts the page and imports the others. */
export const CONSOLE_MODULES = ['console.js', 'shared.js', 'keys.js', 'connect.js', 'playground.js', 'apis.js', 'models.js', 'usage.js', 'health.js'] as const;

const files: ReadonlyArray<readonly [path: string, file: string, type: string]> = [
  ['/', 'index.html', 'text/html; charset=utf-8'],
  ...CONSOLE_MODULES.map((file) => [`/console/${file}`, file, 'text/javascript; charset=utf-8'] as const),
  ['/console/console.css', 'console.css', 'text/css; charset=utf-8'],
  ['/console/icon.svg', 'icon.svg', 'image/svg+xml'],
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

/** Adds GET (and HEAD) `/` and `/console/*` to `app`. */
export function serveConsole(app: Express): void {
  const dir = consoleDir();
  for (const [path, file, type] of files) {
    const body = readFileSync(dir + file);
    const handler: RequestHandler = (_req, res) => {
      res.setHeader('Content-Type', type);
      res.setHeader('Content-Security-Policy', CONSOLE_POLICY);
      res.setHeader('X-Content-Type-Options', 'nosniff');
      res.setHeader('X-Frame-Options', 'DENY');
      res.setHeader('Referrer-Policy', 'no-referrer');
      res.setHeader('Cache-Control', 'no-cache');
      res.end(body);
    };
    app.get(path, handler);
  }
}
