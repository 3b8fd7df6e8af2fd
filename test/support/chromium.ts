/**
 * The Chromium the browser tests drive: CHROMIUM_PATH, else `chromium` on PATH (Debian package
 * `chromium`). When there is none, the browser tests are skipped; global-setup says so once, in one
 * line naming the package (test/support/prerequisites.js).
 */
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { chromiumPath } = require('./prerequisites.js') as { chromiumPath(): string | null };

export const CHROMIUM: string = chromiumPath() ?? '/usr/bin/chromium';
export const HAVE_CHROMIUM: boolean = chromiumPath() !== null;
