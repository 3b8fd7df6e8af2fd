import { join } from 'node:path';
import express, { type RequestHandler } from 'express';

/** Where the console's files are (HTML, CSS and ES modules; no build step). */
export const CONSOLE_DIR = __dirname;

/** Only these files are served (the TypeScript beside them is not). */
const SERVED = /^\/(?:|index\.html|[a-z-]+\.(?:js|css))$/;

/**
 * The review console at `/console`: static files with their content types (express.static),
 * `Cache-Control: no-cache` + ETag (the browser revalidates, so a deploy is picked up at once and an
 * unchanged file costs a 304). The page is public; everything it shows comes from the JSON API,
 * which checks the session cookie and the role. The strict CSP (security-headers.ts) applies:
 * scripts only from this origin, no inline script.
 */
export function consoleStatic(): RequestHandler {
  const files = express.static(CONSOLE_DIR, {
    index: 'index.html', redirect: false, dotfiles: 'ignore', fallthrough: true,
    setHeaders: (res) => { res.setHeader('Cache-Control', 'no-cache'); },
  });
  return (req, res, next) => {
    if (!SERVED.test(req.path)) return next();
    // `/console` itself (no trailing slash): serve-static would only redirect; serve the page (its URLs are absolute).
    if (req.path === '/') req.url = '/index.html';
    return files(req, res, next);
  };
}

export const CONSOLE_INDEX = join(CONSOLE_DIR, 'index.html');
