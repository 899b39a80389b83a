// The application's clock as both pages see it: the browser's clock corrected by the offset measured
// whenever Sluice reports its own time, so that ages and countdowns follow Sluice even when the two differ.

import { h } from './dom.js';

/** Application clock minus the browser's clock. */
let offset = 0;

/** Takes `now` (ms), the application's time that Sluice just reported. */
export function syncClock(now) {
  offset = now - Date.now();
}

/** The application's time now (ms). */
export const appNow = () => Date.now() + offset;

/** A `<time>` element for `ms` showing `text`, with `title` (if any) as its tooltip. */
export function timeElement(ms, text, title) {
  return h('time', { datetime: new Date(ms).toISOString(), title }, text);
}
