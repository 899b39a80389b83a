// How XState's names are shown: event types, delays and state values.

/** "after 5 min" for `300000`; a delay the server could not resolve to a number keeps its name. */
export function delayLabel(delay) {
  const ms = Number(delay);
  if (!Number.isFinite(ms) || String(delay).trim() === '') return `after ${delay}`;
  if (ms < 1000) return `after ${ms} ms`;
  const parts = [];
  let rest = Math.round(ms / 1000);
  for (const [unit, size] of /** @type {[string, number][]} */ ([['d', 86_400], ['h', 3_600], ['min', 60], ['s', 1]])) {
    if (rest >= size) {
      parts.push(`${Math.floor(rest / size)} ${unit}`);
      rest %= size;
    }
  }
  return `after ${parts.slice(0, 2).join(' ')}`;
}

/** A short name for XState's own event types; anything else is shown as it is. */
export function eventLabel(type) {
  const text = String(type ?? '');
  let m = /^xstate\.after\.(.+?)\.[^.]+(?:\.|$)/.exec(text);
  if (m) return delayLabel(m[1]);
  m = /^xstate\.(done|error)\.actor\b/.exec(text);
  if (m) return m[1] === 'done' ? 'done' : 'error';
  if (text.startsWith('xstate.done.state')) return 'done';
  if (text === 'xstate.init') return 'init';
  if (text === 'xstate.stop') return 'stop';
  return text;
}

/** The top-level state of a state value as sent: `running.watching` → `running`; objects too. */
export function topState(value) {
  if (value === null || value === undefined) return '';
  if (typeof value === 'object') return String(Object.keys(value)[0] ?? '');
  return String(value).split(/[.,]/)[0];
}
