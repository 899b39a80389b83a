// How the console shows times and numbers: in the browser's locale, against the application's clock.

import { appNow, timeElement } from './shared/clock.js';

export const dateFormat = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium' });
const fullFormat = new Intl.DateTimeFormat(undefined, { dateStyle: 'full', timeStyle: 'medium' });
export const timeFormat = new Intl.DateTimeFormat(undefined, { timeStyle: 'medium' });
const relativeFormat = new Intl.RelativeTimeFormat(undefined, { numeric: 'auto', style: 'short' });
export const numberFormat = new Intl.NumberFormat();

export const toTime = (value) => (typeof value === 'number' ? value : Date.parse(value));
export const validTime = (value) => value !== undefined && value !== null && value !== '' && Number.isFinite(toTime(value));

/** A `<time>` element showing `text` with the full local date and time as its tooltip. */
export function timeEl(value, text) {
  const t = toTime(value);
  return timeElement(t, text, fullFormat.format(t));
}

export function relative(value) {
  const seconds = (toTime(value) - appNow()) / 1000;
  const abs = Math.abs(seconds);
  if (abs < 45) return relativeFormat.format(0, 'second');
  if (abs < 3600) return relativeFormat.format(Math.round(seconds / 60), 'minute');
  if (abs < 86400) return relativeFormat.format(Math.round(seconds / 3600), 'hour');
  return relativeFormat.format(Math.round(seconds / 86400), 'day');
}

/** "4:59" for 299 seconds. */
export const mmss = (seconds) => `${Math.floor(seconds / 60)}:${String(seconds % 60).padStart(2, '0')}`;
