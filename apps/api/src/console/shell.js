// What the console's pages share with the router (app.js): who is logged in, the permission check,
// and the page registration (shortcuts + cleanup). Its own module so that app.js imports the pages
// and the pages import this, with no import cycle between app.js and the pages.

/** Shared across pages: who is logged in and the last queue page (for j/k on the item page). */
export const session = { me: null, queueIds: [], queueHash: '#/queue' };

export function can(permission) {
  return !!session.me && Array.isArray(session.me.permissions) && session.me.permissions.includes(permission);
}

let cleanup = null;
let keys = {};

/** What a page gives the router: shortcuts (key → {label, run}) and a cleanup run when leaving. */
export function page({ shortcuts = {}, onLeave = null } = {}) {
  keys = shortcuts;
  cleanup = onLeave;
}

/** The current page's shortcuts (the router's key handler and help read them). */
export function pageKeys() {
  return keys;
}

/** The router leaves the current page: its cleanup runs, its shortcuts are dropped. */
export function leavePage() {
  if (cleanup) { try { cleanup(); } catch { /* leaving anyway */ } }
  cleanup = null;
  keys = {};
}
