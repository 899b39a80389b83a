// The feed's frames (`live`, `actor`, `transition`, `stopped`), applied to the cards and the log.

import { actors, addActor, removeActor } from './actors.js';
import { updateCard } from './cards.js';
import { log } from './eventLog.js';
import { plural } from './format.js';
import { FLASH_MS } from './statechart.js';
import { everConnected, markConnected, refreshCounts } from './status.js';
import { topState } from './xstateNames.js';
import { appNow, syncClock } from '/shared/clock.js';

const params = new URLSearchParams(window.location.search);
/** How long a stopped actor stays on screen (ms); `?linger=` overrides it (tests, demos). */
const LINGER_MS = clampInt(params.get('linger'), 0, 600_000, 6_000);
const MAX_STOPPED = 50;

function clampInt(text, min, max, fallback) {
  const n = Number.parseInt(text ?? '', 10);
  return Number.isFinite(n) ? Math.min(max, Math.max(min, n)) : fallback;
}

function onLive(frame) {
  if (Number.isFinite(frame.now)) syncClock(frame.now);
  for (const actor of [...actors.values()]) removeActor(actor);
  const list = Array.isArray(frame.actors) ? frame.actors : [];
  for (const item of list) addActor(item);
  log({
    type: 'live',
    at: appNow(),
    actorId: '',
    machine: '',
    event: everConnected ? 'reconnected' : 'connected',
    detail: `view reset: ${plural(list.length, 'live actor')}`,
  });
  markConnected();
  refreshCounts(true);
}

function onActor(frame) {
  const actor = addActor(frame);
  log({ type: 'actor', at: actor.at, actorId: actor.id, machine: actor.machine, event: 'started', to: topState(actor.state) });
  refreshCounts();
}

function onTransition(frame) {
  const id = String(frame.actorId);
  let actor = actors.get(id);
  if (!actor) actor = addActor({ ...frame, state: frame.from ?? frame.to, parentId: null, principal: null });
  const to = frame.to === undefined || frame.to === null ? actor.state : String(frame.to);
  const from = frame.from === undefined || frame.from === null ? actor.state : String(frame.from);
  actor.state = to;
  if (actor.status !== 'stopped') actor.status = ['done', 'error', 'stopped'].includes(frame.status) ? frame.status : 'active';
  updateCard(actor);
  if (topState(from) !== topState(to) && actor.refs.chartApi?.take(from, to)) actor.tookAt = Date.now();
  log({
    type: 'transition',
    at: frame.at,
    actorId: id,
    machine: actor.machine,
    event: String(frame.event ?? ''),
    from: topState(from),
    to: topState(to),
    status: frame.status,
  });
  refreshCounts();
}

function onStopped(frame) {
  const id = String(frame.actorId);
  const actor = actors.get(id);
  const machine = String(frame.machine ?? actor?.machine ?? id.split(':')[0]);
  log({ type: 'stopped', at: frame.at, actorId: id, machine, event: 'stopped', to: actor ? topState(actor.state) : '' });
  if (!actor || actor.status === 'stopped') return;
  actor.status = 'stopped';
  actor.stoppedAt = Number.isFinite(frame.at) ? frame.at : appNow();
  updateCard(actor);
  // Let the arrow that ended it finish flashing before the card greys; fade it out just before it goes.
  const flashing = Math.max(0, (actor.tookAt ?? 0) + FLASH_MS - Date.now());
  const fade = Math.min(400, LINGER_MS);
  actor.removeTimer = setTimeout(() => actor.el.classList.add('is-greyed'), Math.min(flashing, LINGER_MS - fade));
  actor.leaveTimer = setTimeout(() => actor.el.classList.add('is-leaving'), LINGER_MS - fade);
  actor.dropTimer = setTimeout(() => {
    removeActor(actor);
    refreshCounts();
  }, LINGER_MS);
  // At most MAX_STOPPED greyed cards: the oldest go first.
  const stopped = [...actors.values()].filter((a) => a.status === 'stopped').sort((a, b) => a.stoppedAt - b.stoppedAt);
  for (const old of stopped.slice(0, Math.max(0, stopped.length - MAX_STOPPED))) removeActor(old);
  refreshCounts();
}

export function onFrame(frame, fallbackType) {
  if (!frame || typeof frame !== 'object') return;
  const type = frame.type ?? fallbackType;
  if (type === 'live') onLive(frame);
  else if (type === 'actor') onActor(frame);
  else if (type === 'transition') onTransition(frame);
  else if (type === 'stopped') onStopped(frame);
}
