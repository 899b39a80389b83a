// The actors on screen, by id: the live ones and, for a while, the stopped ones.

import { createCard, ensureMachine } from './cards.js';
import { rememberPrincipal } from './eventLog.js';
import { applyCardFilter, notePrincipal } from './filters.js';
import { topState } from './xstateNames.js';
import { appNow } from '/shared/clock.js';

/** @type {Map<string, Actor>} live and lingering actors, by public actor id */
export const actors = new Map();

/**
 * @typedef {object} Actor
 * @property {string} id
 * @property {string} machine
 * @property {string|null} parentId
 * @property {{id: string, name: string}|null} principal
 * @property {string} state  the state value as sent (`running.watching` for a nested one)
 * @property {string} status `active`, `done`, `error` (as XState reports it) or `stopped` (gone)
 * @property {number} at     when it started (ms, the server's clock)
 * @property {number} [stoppedAt]
 * @property {number} [tookAt]  when its last arrow flashed
 * @property {number} [removeTimer]
 * @property {number} [leaveTimer]
 * @property {number} [dropTimer]
 * @property {HTMLElement} el
 * @property {object} refs
 */

/** A new actor's card and record, from the frame that started it (or its first transition). @returns {Actor} */
export function addActor(frame) {
  const id = String(frame.actorId);
  const machine = String(frame.machine ?? id.split(':')[0]);
  const existing = actors.get(id);
  if (existing) removeActor(existing);
  // `el` and `refs` come with its card (createCard, below).
  const actor = /** @type {Actor} */ ({
    id,
    machine,
    parentId: frame.parentId ?? null,
    principal: frame.principal && typeof frame.principal === 'object' ? frame.principal : null,
    state: frame.state === undefined || frame.state === null ? '' : typeof frame.state === 'object' ? topState(frame.state) : String(frame.state),
    status: 'active',
    at: Number.isFinite(frame.at) ? frame.at : appNow(),
  });
  notePrincipal(actor.principal);
  rememberPrincipal(id, actor.principal?.id ?? '');
  const section = ensureMachine(machine);
  createCard(actor);
  actors.set(id, actor);
  section.cards.append(actor.el);
  applyCardFilter(actor);
  return actor;
}

export function removeActor(actor) {
  clearTimeout(actor.removeTimer);
  clearTimeout(actor.leaveTimer);
  clearTimeout(actor.dropTimer);
  actor.el.remove();
  actors.delete(actor.id);
}
