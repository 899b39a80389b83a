// Sluice's live actor inspector: machine definitions from GET /api/inspector/machines, actors and
// their transitions from the server-sent events of GET /api/inspector/events (docs/console.md, "The
// inspector feed"). Plain ES module, no dependencies, no requests beyond those two.

const MACHINES_URL = '/api/inspector/machines';
const EVENTS_URL = '/api/inspector/events';
const FRAME_TYPES = ['live', 'actor', 'transition', 'stopped'];

const params = new URLSearchParams(window.location.search);
/** How long a stopped actor stays on screen (ms); `?linger=` overrides it (tests, demos). */
const LINGER_MS = clampInt(params.get('linger'), 0, 600_000, 6_000);
const MAX_STOPPED = 50;
const MAX_LOG = 500;
const FLASH_MS = 1_600;
const STATUS_DEBOUNCE_MS = 800;

const ALL = '__all__';
const NONE = '__none__';

// ---------------------------------------------------------------------------------------------------
// State

/** @type {Map<string, {id: string, initial: string, states: Record<string, any>}>} */
const machines = new Map();
/** Machine ids in display order: the definitions' order, then any other machine seen in the feed. */
const machineOrder = [];
/** Layouts of the statecharts, by machine id. */
const layouts = new Map();

/** @type {Map<string, Actor>} live and lingering actors, by public actor id */
const actors = new Map();
/** Principal ids by actor id, kept past an actor's removal so that its log lines can be filtered. */
const principalOfActor = new Map();
/** Principals seen: id → name. */
const principals = new Map();

/** Machines switched off, and the principal shown (ALL, NONE or a principal id). */
const filters = { off: new Set(), principal: ALL };

let connection = 'connecting';
let everConnected = false;
let source = null;
let retryTimer = 0;
let retryDelay = 1_000;
let machinesLoaded = false;
let machinesLoading = null;
let machinesRetryTimer = 0;
let machinesRetryDelay = 5_000;
let domIds = 0;
/** The application's clock minus the browser's, if the `live` frame tells (`now`); ages use it. */
let clockSkew = 0;
const appNow = () => Date.now() + clockSkew;

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

// ---------------------------------------------------------------------------------------------------
// DOM

const $ = (selector, root = document) => root.querySelector(selector);
const dom = {
  status: $('[data-live-status]'),
  statusText: $('[data-status-text]'),
  statusCounts: $('[data-status-counts]'),
  loadError: $('[data-load-error]'),
  machineFilters: $('[data-machine-filters]'),
  principalFilter: $('[data-filter-principal]'),
  sections: $('[data-machine-sections]'),
  emptyActors: $('[data-empty-actors]'),
  log: $('[data-log]'),
  logScroll: $('[data-log-scroll]'),
  logCount: $('[data-log-count]'),
  logClear: $('[data-log-clear]'),
  logJump: $('[data-log-jump]'),
};
/** @type {Map<string, {el: HTMLElement, cards: HTMLElement, count: HTMLElement, empty: HTMLElement}>} */
const sections = new Map();

function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (value === null || value === undefined || value === false) continue;
    if (name === 'class') el.className = value;
    else if (name === 'text') el.textContent = value;
    else el.setAttribute(name, value === true ? '' : String(value));
  }
  for (const child of children) if (child !== null && child !== undefined) el.append(child);
  return el;
}

const SVG_NS = 'http://www.w3.org/2000/svg';
function s(tag, attrs = {}, ...children) {
  const el = document.createElementNS(SVG_NS, tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (value === null || value === undefined || value === false) continue;
    if (name === 'text') el.textContent = value;
    else el.setAttribute(name, String(value));
  }
  for (const child of children) if (child) el.append(child);
  return el;
}

// ---------------------------------------------------------------------------------------------------
// Formatting

function clampInt(text, min, max, fallback) {
  const n = Number.parseInt(text ?? '', 10);
  return Number.isFinite(n) ? Math.min(max, Math.max(min, n)) : fallback;
}

const pad = (n, width = 2) => String(n).padStart(width, '0');

function clock(ms) {
  const d = new Date(ms);
  return `${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}.${pad(d.getMilliseconds(), 3)}`;
}

function duration(ms) {
  const sec = Math.max(0, Math.floor(ms / 1000));
  if (sec < 60) return `${sec} s`;
  const min = Math.floor(sec / 60);
  if (min < 60) return `${min} min ${sec % 60} s`;
  const hours = Math.floor(min / 60);
  if (hours < 24) return `${hours} h ${min % 60} min`;
  return `${Math.floor(hours / 24)} d ${hours % 24} h`;
}

/** "after 5 min" for `300000`; a delay the server could not resolve to a number keeps its name. */
function delayLabel(delay) {
  const ms = Number(delay);
  if (!Number.isFinite(ms) || String(delay).trim() === '') return `after ${delay}`;
  if (ms < 1000) return `after ${ms} ms`;
  const parts = [];
  let rest = Math.round(ms / 1000);
  for (const [unit, size] of [['d', 86_400], ['h', 3_600], ['min', 60], ['s', 1]]) {
    if (rest >= size) {
      parts.push(`${Math.floor(rest / size)} ${unit}`);
      rest %= size;
    }
  }
  return `after ${parts.slice(0, 2).join(' ')}`;
}

/** A short name for XState's own event types; anything else is shown as it is. */
function eventLabel(type) {
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
function topState(value) {
  if (value === null || value === undefined) return '';
  if (typeof value === 'object') return String(Object.keys(value)[0] ?? '');
  return String(value).split(/[.,]/)[0];
}

const plural = (n, one, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

// ---------------------------------------------------------------------------------------------------
// Statechart layout

const FONT_STACK = 'system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif';
const STATE_FONT = `500 12px ${FONT_STACK}`;
const LABEL_FONT = `11px ${FONT_STACK}`;
const G = {
  boxH: 26,
  padX: 11,
  minBoxW: 50,
  vGap: 12,
  margin: 8,
  init: 22,
  bus: 12,
  busStep: 6,
  labelPad: 8,
  arrow: 7,
  minGap: 40,
  loop: 18,
  lane: 20,
  labelWrap: 130,
  lineH: 12,
};

const measureText = (() => {
  let ctx = null;
  return (text, font) => {
    ctx ??= document.createElement('canvas').getContext('2d');
    if (!ctx) return text.length * 6.5;
    ctx.font = font;
    return ctx.measureText(text).width;
  };
})();

/**
 * Boxes for the states, laid out left to right by their distance from the initial state, and edges:
 * one per (from, to) pair, labelled with every event that takes it.
 */
function layoutMachine(def) {
  const names = Object.keys(def.states ?? {});
  const known = new Set(names);
  const resolve = (target) => {
    const parts = String(target ?? '').replace(/^#/, '').split('.');
    return parts.find((part) => known.has(part)) ?? null;
  };

  /** @type {Map<string, {from: string, to: string, events: string[], labels: string[], kinds: Set<string>}>} */
  const edgeMap = new Map();
  const addEdge = (from, to, event, label, kind) => {
    if (!to) return;
    const key = `${from}\u0000${to}`;
    let edge = edgeMap.get(key);
    if (!edge) edgeMap.set(key, (edge = { from, to, events: [], labels: [], kinds: new Set() }));
    if (!edge.events.includes(event)) edge.events.push(event);
    if (!edge.labels.includes(label)) edge.labels.push(label);
    edge.kinds.add(kind);
  };
  for (const from of names) {
    const node = def.states[from] ?? {};
    for (const [event, targets] of Object.entries(node.on ?? {})) {
      for (const target of [].concat(targets ?? [])) addEdge(from, resolve(target), event, eventLabel(event), 'on');
    }
    for (const [delay, targets] of Object.entries(node.after ?? {})) {
      for (const target of [].concat(targets ?? [])) addEdge(from, resolve(target), `after:${delay}`, delayLabel(delay), 'after');
    }
  }
  const edges = [...edgeMap.values()];

  // Layers: breadth-first from the initial state; states it cannot reach go in one last layer.
  const initial = known.has(def.initial) ? def.initial : names[0];
  const layerOf = new Map();
  if (initial !== undefined) {
    layerOf.set(initial, 0);
    const queue = [initial];
    while (queue.length > 0) {
      const at = queue.shift();
      for (const edge of edges) {
        if (edge.from === at && !layerOf.has(edge.to)) {
          layerOf.set(edge.to, layerOf.get(at) + 1);
          queue.push(edge.to);
        }
      }
    }
  }
  const reached = Math.max(-1, ...layerOf.values());
  for (const name of names) if (!layerOf.has(name)) layerOf.set(name, reached + 1);
  const columns = [];
  for (const name of names) (columns[layerOf.get(name)] ??= []).push(name);

  // Order each column by where its predecessors sit (fewer crossings), then by definition order.
  const rank = new Map();
  columns.forEach((column, c) => {
    if (c > 0) {
      const bary = (name) => {
        const from = edges.filter((e) => e.to === name && layerOf.get(e.from) < c).map((e) => rank.get(e.from) ?? 0);
        return from.length ? from.reduce((a, b) => a + b, 0) / from.length : Number.POSITIVE_INFINITY;
      };
      const order = new Map(column.map((name, i) => [name, i]));
      column.sort((a, b) => bary(a) - bary(b) || order.get(a) - order.get(b));
    }
    column.forEach((name, i) => rank.set(name, i));
  });

  const selfLoops = new Set(edges.filter((e) => e.from === e.to).map((e) => e.from));
  const labelText = (edge) => edge.labels.join(', ');
  // A long list of events wraps onto a second line rather than widening the chart.
  const labelLines = (edge) => {
    const lines = [];
    edge.labels.forEach((label, i) => {
      const piece = i < edge.labels.length - 1 ? `${label},` : label;
      const last = lines.length - 1;
      if (last >= 0 && measureText(`${lines[last]} ${piece}`, LABEL_FONT) <= G.labelWrap) lines[last] = `${lines[last]} ${piece}`;
      else lines.push(piece);
    });
    return lines;
  };
  const labelW = (edge) => Math.ceil(Math.max(...labelLines(edge).map((line) => measureText(line, LABEL_FONT))));

  // Sources of forward edges in each column, each with its own vertical "bus".
  const busIndex = new Map();
  columns.forEach((column) => {
    let k = 0;
    for (const name of column) {
      if (edges.some((e) => e.from === name && layerOf.get(e.to) > layerOf.get(name))) busIndex.set(name, k++);
    }
  });

  // Column widths, and the gap before each column: wide enough for the labels of the edges entering it.
  const colW = columns.map((column) =>
    Math.max(...column.map((name) => Math.max(G.minBoxW, Math.ceil(measureText(name, STATE_FONT)) + 2 * G.padX))),
  );
  const gaps = columns.map((_, c) => {
    if (c === 0) return 0;
    let need = G.minGap;
    for (const edge of edges) {
      if (layerOf.get(edge.to) !== c || layerOf.get(edge.from) >= c) continue;
      const bus = G.bus + (busIndex.get(edge.from) ?? 0) * G.busStep;
      need = Math.max(need, bus + labelW(edge) + 2 * G.labelPad + G.arrow);
    }
    return need;
  });

  // Vertical placement: each column centred on the tallest.
  const heightOf = (column) =>
    column.reduce((sum, name) => sum + (selfLoops.has(name) ? G.loop : 0) + G.boxH, 0) + G.vGap * (column.length - 1);
  const contentH = Math.max(G.boxH, ...columns.map(heightOf));
  const boxes = new Map();
  let x = G.margin + G.init;
  columns.forEach((column, c) => {
    x += gaps[c];
    let y = G.margin + (contentH - heightOf(column)) / 2;
    for (const name of column) {
      if (selfLoops.has(name)) y += G.loop;
      boxes.set(name, { name, x, y, w: colW[c], h: G.boxH, cy: y + G.boxH / 2, col: c, final: def.states[name]?.type === 'final' });
      y += G.boxH + G.vGap;
    }
    x += colW[c];
  });
  let width = x + G.margin;
  let height = G.margin * 2 + contentH;

  // Incoming ports: several forward edges into one state arrive a few pixels apart.
  const incoming = new Map();
  for (const edge of edges) {
    if (layerOf.get(edge.to) > layerOf.get(edge.from)) (incoming.get(edge.to) ?? incoming.set(edge.to, []).get(edge.to)).push(edge);
  }

  const routed = [];
  let lanes = 0;
  for (const edge of edges) {
    const a = boxes.get(edge.from);
    const b = boxes.get(edge.to);
    const text = labelText(edge);
    const lines = labelLines(edge);
    const lw = labelW(edge);
    const extra = (lines.length - 1) * G.lineH;
    let d;
    let head;
    let label;
    if (edge.from === edge.to) {
      // A loop over the box's right end, its label to the right.
      const x1 = a.x + a.w - 24;
      const x2 = a.x + a.w - 10;
      d = `M${x1},${a.y} C${x1 - 2},${a.y - G.loop + 2} ${x2 + 2},${a.y - G.loop + 2} ${x2},${a.y - G.arrow}`;
      head = `M${x2},${a.y} L${x2 - 3.5},${a.y - G.arrow} L${x2 + 3.5},${a.y - G.arrow} Z`;
      label = { x: x2 + 8, y: a.y - 7 - extra, anchor: 'start' };
      width = Math.max(width, label.x + lw + G.margin);
    } else if (b.col > a.col) {
      const ports = incoming.get(edge.to) ?? [edge];
      const i = ports.indexOf(edge);
      const y2 = b.cy + (i - (ports.length - 1) / 2) * 8;
      const x1 = a.x + a.w;
      const y1 = a.cy;
      const xb = x1 + G.bus + (busIndex.get(edge.from) ?? 0) * G.busStep;
      const x2 = b.x;
      const dy = y2 - y1;
      if (Math.abs(dy) < 0.5) {
        d = `M${x1},${y1} H${x2 - G.arrow}`;
      } else {
        const r = Math.min(6, Math.abs(dy) / 2);
        const sg = Math.sign(dy);
        d = `M${x1},${y1} H${xb - r} Q${xb},${y1} ${xb},${y1 + sg * r} V${y2 - sg * r} Q${xb},${y2} ${xb + r},${y2} H${x2 - G.arrow}`;
      }
      head = `M${x2},${y2} L${x2 - G.arrow},${y2 - 3.5} L${x2 - G.arrow},${y2 + 3.5} Z`;
      const below = ports.length > 1 && i > (ports.length - 1) / 2;
      label = { x: (xb + x2 - G.arrow) / 2, y: below ? y2 + 12 : y2 - 5 - extra, anchor: 'middle' };
    } else {
      // Backwards (or within a column): under everything, along a lane of its own.
      const laneY = G.margin + contentH + 12 + lanes * G.lane;
      lanes += 1;
      const x1 = a.x + a.w / 2 + 6;
      const x2 = b.x + b.w / 2 - 6;
      const r = 6;
      const dir = Math.sign(x2 - x1) || 1;
      d = `M${x1},${a.y + a.h} V${laneY - r} Q${x1},${laneY} ${x1 + dir * r},${laneY} H${x2 - dir * r} Q${x2},${laneY} ${x2},${laneY - r} V${b.y + b.h + G.arrow}`;
      head = `M${x2},${b.y + b.h} L${x2 - 3.5},${b.y + b.h + G.arrow} L${x2 + 3.5},${b.y + b.h + G.arrow} Z`;
      label = { x: (x1 + x2) / 2, y: laneY + 12, anchor: 'middle' };
      lanes += extra / G.lane;
      width = Math.max(width, label.x + lw / 2 + G.margin);
    }
    routed.push({ ...edge, kinds: [...edge.kinds], text, lines, d, head, label });
  }
  if (lanes > 0) height += 12 + lanes * G.lane;

  // Labels above the first row or below the last one grow the chart (it is shifted down by `top`).
  let minY = 0;
  for (const edge of routed) {
    minY = Math.min(minY, edge.label.y - 10);
    height = Math.max(height, edge.label.y + (edge.lines.length - 1) * G.lineH + 4);
  }
  const top = Math.ceil(-minY);

  const init = boxes.get(initial);
  return { id: def.id, initial, names, boxes, edges: routed, width: Math.ceil(width), height: Math.ceil(height + top), top, init };
}

function layoutFor(machine) {
  if (!machines.has(machine)) return null;
  if (!layouts.has(machine)) layouts.set(machine, layoutMachine(machines.get(machine)));
  return layouts.get(machine);
}

/** The statechart of one actor, as inline SVG; `setCurrent` moves the highlight. */
function renderChart(layout, machine) {
  const svg = s('svg', {
    class: 'chart',
    role: 'img',
    viewBox: `0 0 ${layout.width} ${layout.height}`,
    width: layout.width,
    height: layout.height,
    'data-chart': machine,
  });
  const edgesLayer = s('g', { class: 'edges' });
  const statesLayer = s('g', { class: 'states' });
  const edgeEls = new Map();
  const stateEls = new Map();

  if (layout.init) {
    const { x, cy } = layout.init;
    const x0 = G.margin + 3;
    edgesLayer.append(
      s('g', { class: 'initial-marker' },
        s('circle', { cx: x0, cy, r: 3.5 }),
        s('path', { class: 'edge-line', d: `M${x0},${cy} H${x - G.arrow}` }),
        s('path', { class: 'edge-head', d: `M${x},${cy} L${x - G.arrow},${cy - 3.5} L${x - G.arrow},${cy + 3.5} Z` }),
      ),
    );
  }

  for (const edge of layout.edges) {
    const g = s('g', {
      class: 'edge',
      'data-from': edge.from,
      'data-to': edge.to,
      'data-events': edge.events.join(' '),
      'data-kind': edge.kinds.join(' '),
    },
      s('title', { text: `${edge.from} → ${edge.to}: ${edge.events.map((e) => (e.startsWith('after:') ? delayLabel(e.slice(6)) : e)).join(', ')}` }),
      s('path', { class: 'edge-line', d: edge.d }),
      s('path', { class: 'edge-head', d: edge.head }),
      s('text', { class: 'edge-label', x: edge.label.x, y: edge.label.y, 'text-anchor': edge.label.anchor },
        ...edge.lines.map((line, i) => s('tspan', { x: edge.label.x, dy: i === 0 ? 0 : G.lineH, text: line })),
      ),
    );
    edgesLayer.append(g);
    edgeEls.set(`${edge.from}\u0000${edge.to}`, g);
  }

  for (const name of layout.names) {
    const box = layout.boxes.get(name);
    const g = s('g', {
      class: 'state',
      'data-state': name,
      'data-final': box.final ? 'true' : null,
      'data-initial': name === layout.initial ? 'true' : null,
    },
      s('rect', { class: 'state-box', x: box.x, y: box.y, width: box.w, height: box.h, rx: 7, ry: 7 }),
      box.final ? s('rect', { class: 'state-inner', x: box.x + 3, y: box.y + 3, width: box.w - 6, height: box.h - 6, rx: 4.5, ry: 4.5 }) : null,
      s('text', { class: 'state-name', x: box.x + box.w / 2, y: box.cy, 'text-anchor': 'middle', 'dominant-baseline': 'central', text: name }),
    );
    statesLayer.append(g);
    stateEls.set(name, g);
  }
  const content = s('g', { transform: layout.top ? `translate(0 ${layout.top})` : null }, edgesLayer, statesLayer);
  svg.append(content);

  let current = null;
  let flashTimer = 0;
  return {
    svg,
    setCurrent(state) {
      const top = topState(state);
      if (current !== top) {
        const before = current && stateEls.get(current);
        if (before) {
          before.removeAttribute('aria-current');
          before.removeAttribute('data-current');
        }
        const after = stateEls.get(top);
        if (after) {
          after.setAttribute('aria-current', 'true');
          after.setAttribute('data-current', 'true');
        }
        current = top;
      }
      svg.setAttribute('aria-label', `${machine} statechart, current state ${top || 'unknown'}`);
    },
    /** Flashes the arrow from → to, and keeps it marked as the last one taken. */
    take(from, to) {
      const edge = edgeEls.get(`${topState(from)}\u0000${topState(to)}`);
      if (!edge) return false;
      for (const other of edgeEls.values()) if (other !== edge) other.removeAttribute('data-taken');
      edge.setAttribute('data-taken', 'true');
      edge.classList.remove('flash');
      void edge.getBoundingClientRect(); // restart the animation
      edge.classList.add('flash');
      clearTimeout(flashTimer);
      flashTimer = setTimeout(() => edge.classList.remove('flash'), FLASH_MS + 100);
      return true;
    },
  };
}

// ---------------------------------------------------------------------------------------------------
// Sections and cards

function ensureMachine(machine) {
  if (!machineOrder.includes(machine)) {
    machineOrder.push(machine);
    renderMachineFilters();
  }
  return ensureSection(machine);
}

function ensureSection(machine) {
  let section = sections.get(machine);
  if (section) return section;
  const titleId = `machine-${++domIds}`;
  const count = h('span', { class: 'count', 'data-machine-count': '' });
  const cards = h('div', { class: 'cards', 'data-cards': '' });
  const empty = h('p', { class: 'section-empty', text: 'None live.' });
  const el = h('section', { class: 'machine', 'data-machine-section': machine, 'aria-labelledby': titleId },
    h('h3', { id: titleId }, h('span', { class: 'machine-name', text: machine }), ' ', count),
    empty,
    cards,
  );
  section = { el, cards, count, empty };
  sections.set(machine, section);
  placeSections();
  return section;
}

/** Sections follow machineOrder. */
function placeSections() {
  for (const machine of machineOrder) {
    const section = sections.get(machine);
    if (section) dom.sections.append(section.el);
  }
}

function createCard(actor) {
  const titleId = `actor-${++domIds}`;
  const stateDd = h('dd', { 'data-field': 'state' });
  const principalDd = h('dd', { 'data-field': 'principal' });
  const principalRow = h('div', { 'data-row': 'principal', hidden: true }, h('dt', { text: 'Principal' }), principalDd);
  const ageDd = h('dd', { 'data-field': 'age' });
  const badge = h('span', { class: 'badge', 'data-badge': '', hidden: true });
  const chart = h('div', { class: 'chart-wrap', 'data-chart-wrap': '' });
  const el = h('article', {
    class: 'card actor',
    'data-actor-id': actor.id,
    'data-machine': actor.machine,
    'aria-labelledby': titleId,
  },
    h('div', { class: 'actor-head' },
      h('h4', { id: titleId, class: 'actor-id' }, h('code', { text: actor.id })),
      badge,
    ),
    h('dl', { class: 'actor-meta' },
      h('div', { 'data-row': 'state' }, h('dt', { text: 'State' }), stateDd),
      principalRow,
      h('div', { 'data-row': 'age' }, h('dt', { text: 'Age' }), ageDd),
    ),
    chart,
  );
  actor.el = el;
  actor.refs = { stateDd, principalDd, principalRow, ageDd, badge, chart, chartApi: null };
  attachChart(actor);
  updateCard(actor);
}

function attachChart(actor) {
  if (actor.refs.chartApi) return;
  const layout = layoutFor(actor.machine);
  actor.refs.chart.replaceChildren();
  if (!layout) {
    if (machinesLoaded) actor.refs.chart.append(h('p', { class: 'muted small', text: 'No statechart for this machine.' }));
    return;
  }
  const api = renderChart(layout, actor.machine);
  actor.refs.chart.append(api.svg);
  actor.refs.chartApi = api;
  api.setCurrent(actor.state);
}

function updateCard(actor) {
  const { el, refs } = actor;
  el.dataset.status = actor.status;
  el.dataset.principalId = actor.principal?.id ?? '';
  if (actor.parentId) el.dataset.parentId = actor.parentId;
  const top = topState(actor.state);
  refs.stateDd.textContent = top;
  refs.stateDd.dataset.value = actor.state;
  refs.stateDd.title = actor.state !== top ? `State value: ${actor.state}` : '';
  if (actor.principal) {
    refs.principalDd.textContent = actor.principal.name || actor.principal.id;
    refs.principalDd.title = `Token ${actor.principal.id}`;
    refs.principalRow.hidden = false;
  } else {
    refs.principalRow.hidden = true;
  }
  const badgeText = actor.status === 'active' ? '' : actor.status;
  refs.badge.textContent = badgeText;
  refs.badge.hidden = badgeText === '';
  refs.badge.dataset.kind = actor.status;
  refs.chartApi?.setCurrent(actor.state);
  updateAge(actor);
}

function updateAge(actor) {
  const end = actor.stoppedAt ?? appNow();
  actor.refs.ageDd.textContent = duration(end - actor.at);
}

// ---------------------------------------------------------------------------------------------------
// Frames

function notePrincipal(principal) {
  if (!principal || typeof principal.id !== 'string') return;
  const name = typeof principal.name === 'string' && principal.name ? principal.name : principal.id;
  if (principals.get(principal.id) === name) return;
  principals.set(principal.id, name);
  renderPrincipalFilter();
}

function addActor(frame) {
  const id = String(frame.actorId);
  const machine = String(frame.machine ?? id.split(':')[0]);
  const existing = actors.get(id);
  if (existing) removeActor(existing);
  const actor = {
    id,
    machine,
    parentId: frame.parentId ?? null,
    principal: frame.principal && typeof frame.principal === 'object' ? frame.principal : null,
    state: frame.state === undefined || frame.state === null ? '' : typeof frame.state === 'object' ? topState(frame.state) : String(frame.state),
    status: 'active',
    at: Number.isFinite(frame.at) ? frame.at : appNow(),
  };
  notePrincipal(actor.principal);
  principalOfActor.set(id, actor.principal?.id ?? '');
  const section = ensureMachine(machine);
  createCard(actor);
  actors.set(id, actor);
  section.cards.append(actor.el);
  applyCardFilter(actor);
  return actor;
}

function removeActor(actor) {
  clearTimeout(actor.removeTimer);
  clearTimeout(actor.leaveTimer);
  clearTimeout(actor.dropTimer);
  actor.el.remove();
  actors.delete(actor.id);
}

function onLive(frame) {
  if (Number.isFinite(frame.now)) clockSkew = frame.now - Date.now();
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
  everConnected = true;
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

function onFrame(frame, fallbackType) {
  if (!frame || typeof frame !== 'object') return;
  const type = frame.type ?? fallbackType;
  if (type === 'live') onLive(frame);
  else if (type === 'actor') onActor(frame);
  else if (type === 'transition') onTransition(frame);
  else if (type === 'stopped') onStopped(frame);
}

// ---------------------------------------------------------------------------------------------------
// Event log

let logStick = true;

function log(entry) {
  const at = Number.isFinite(entry.at) ? entry.at : appNow();
  const principalId = entry.actorId ? principalOfActor.get(entry.actorId) ?? '' : '';
  let eventCell;
  let change;
  if (entry.type === 'transition') {
    const label = eventLabel(entry.event);
    eventCell = h('span', { class: 'event-name', title: label !== entry.event ? entry.event : null, text: label });
    change = h('span', { class: 'change' },
      h('span', { class: 'from', text: entry.from }),
      h('span', { class: 'arrow', 'aria-label': 'to', text: ' → ' }),
      h('span', { class: 'to', text: entry.to }),
      entry.status === 'done' || entry.status === 'error' ? h('span', { class: 'badge', 'data-kind': entry.status, text: entry.status }) : null,
    );
  } else if (entry.type === 'actor') {
    eventCell = h('span', { class: 'event-kind', text: 'started' });
    change = h('span', { class: 'change' }, h('span', { class: 'arrow', 'aria-label': 'in', text: '→ ' }), h('span', { class: 'to', text: entry.to }));
  } else if (entry.type === 'stopped') {
    eventCell = h('span', { class: 'event-kind', text: 'stopped' });
    change = h('span', { class: 'change muted', text: entry.to ? `in ${entry.to}` : '' });
  } else {
    eventCell = h('span', { class: 'event-kind', text: entry.event });
    change = h('span', { class: 'change muted', text: entry.detail ?? '' });
  }
  const actorCell = entry.actorId ? h('code', { class: 'actor-ref', text: entry.actorId }) : h('span', { class: 'muted', text: '—' });
  const row = h('tr', {
    'data-log-entry': '',
    'data-type': entry.type,
    'data-actor-id': entry.actorId || null,
    'data-machine': entry.machine || null,
    'data-principal-id': principalId,
  },
    h('td', { class: 'time' }, h('time', { datetime: new Date(at).toISOString(), text: clock(at) })),
    h('td', {}, actorCell),
    h('td', { class: 'event' }, eventCell),
    h('td', {}, change),
  );
  row.hidden = !logRowVisible(row);
  dom.log.append(row);
  while (dom.log.childElementCount > MAX_LOG) dom.log.firstElementChild.remove();
  dom.logCount.textContent = plural(dom.log.childElementCount, 'entry', 'entries');
  scheduleLogScroll();
}

let scrollPending = false;
function scheduleLogScroll() {
  if (scrollPending) return;
  scrollPending = true;
  window.requestAnimationFrame(() => {
    scrollPending = false;
    if (logStick) dom.logScroll.scrollTop = dom.logScroll.scrollHeight;
    else dom.logJump.hidden = false;
  });
}

function atBottom() {
  const el = dom.logScroll;
  return el.scrollHeight - el.scrollTop - el.clientHeight <= 8;
}

dom.logScroll.addEventListener('scroll', () => {
  logStick = atBottom();
  if (logStick) dom.logJump.hidden = true;
}, { passive: true });

dom.logJump.addEventListener('click', () => {
  logStick = true;
  dom.logJump.hidden = true;
  dom.logScroll.scrollTop = dom.logScroll.scrollHeight;
  dom.logScroll.focus();
});

dom.logClear.addEventListener('click', () => {
  dom.log.replaceChildren();
  dom.logCount.textContent = plural(0, 'entry', 'entries');
  logStick = true;
  dom.logJump.hidden = true;
});

// ---------------------------------------------------------------------------------------------------
// Filters

function renderMachineFilters() {
  const list = dom.machineFilters;
  for (const machine of machineOrder) {
    if (list.querySelector(`[data-filter-machine="${CSS.escape(machine)}"]`)) continue;
    const id = `filter-machine-${++domIds}`;
    const input = h('input', { type: 'checkbox', id, 'data-filter-machine': machine, value: machine });
    input.checked = !filters.off.has(machine);
    input.addEventListener('change', () => {
      if (input.checked) filters.off.delete(machine);
      else filters.off.add(machine);
      applyFilters();
    });
    list.append(h('div', { class: 'check' }, input, h('label', { for: id, text: machine })));
  }
  // Keep the checkboxes in machineOrder.
  for (const machine of machineOrder) {
    const box = list.querySelector(`[data-filter-machine="${CSS.escape(machine)}"]`);
    if (box) list.append(box.parentElement);
  }
}

function renderPrincipalFilter() {
  const select = dom.principalFilter;
  const chosen = select.value;
  const sorted = [...principals.entries()].sort((a, b) => a[1].localeCompare(b[1]) || a[0].localeCompare(b[0]));
  const counts = new Map();
  for (const [, name] of sorted) counts.set(name, (counts.get(name) ?? 0) + 1);
  select.replaceChildren(
    h('option', { value: ALL, text: 'All principals' }),
    h('option', { value: NONE, text: 'No principal' }),
    ...sorted.map(([id, name]) => h('option', { value: id, 'data-principal-id': id, text: counts.get(name) > 1 || name === id ? `${name} (${id})` : name })),
  );
  select.value = [...select.options].some((o) => o.value === chosen) ? chosen : ALL;
}

dom.principalFilter.addEventListener('change', () => {
  filters.principal = dom.principalFilter.value;
  applyFilters();
});

function principalMatches(principalId) {
  if (filters.principal === ALL) return true;
  if (filters.principal === NONE) return principalId === '';
  return principalId === filters.principal;
}

function applyCardFilter(actor) {
  actor.el.hidden = !principalMatches(actor.principal?.id ?? '');
}

function logRowVisible(row) {
  if (row.dataset.type === 'live') return true;
  const machine = row.dataset.machine ?? '';
  return !filters.off.has(machine) && principalMatches(row.dataset.principalId ?? '');
}

function applyFilters() {
  for (const actor of actors.values()) applyCardFilter(actor);
  for (const row of dom.log.children) row.hidden = !logRowVisible(row);
  refreshCounts(true);
  if (logStick) dom.logScroll.scrollTop = dom.logScroll.scrollHeight;
}

// ---------------------------------------------------------------------------------------------------
// Counts and status

let statusTimer = 0;

function refreshCounts(now = false) {
  let live = 0;
  let shown = 0;
  for (const machine of machineOrder) {
    const section = sections.get(machine);
    if (!section) continue;
    let sectionLive = 0;
    let sectionStopped = 0;
    let sectionShown = 0;
    for (const actor of actors.values()) {
      if (actor.machine !== machine) continue;
      if (actor.status === 'stopped') sectionStopped += 1;
      else sectionLive += 1;
      if (!actor.el.hidden) sectionShown += 1;
    }
    const hiddenByPrincipal = sectionLive + sectionStopped - sectionShown;
    const parts = [`${sectionLive} live`];
    if (sectionStopped) parts.push(`${sectionStopped} stopped`);
    if (hiddenByPrincipal) parts.push(`${hiddenByPrincipal} filtered out`);
    section.count.textContent = parts.join(', ');
    section.count.dataset.live = String(sectionLive);
    section.el.dataset.live = String(sectionLive);
    section.el.hidden = filters.off.has(machine);
    section.empty.hidden = sectionShown > 0;
    section.empty.textContent = sectionLive + sectionStopped > 0 ? 'All filtered out.' : 'None live.';
    section.el.classList.toggle('is-empty', sectionShown === 0);
    live += sectionLive;
    if (!filters.off.has(machine)) shown += sectionShown;
  }
  dom.emptyActors.hidden = live > 0 || actors.size > 0;
  dom.emptyActors.textContent = connection === 'connected' ? 'No live actors.' : 'No live actors yet.';
  dom.statusCounts.dataset.liveCount = String(live);
  dom.statusCounts.dataset.shownCount = String(shown);
  // The status line is a live region: count changes are batched so that it is not read out per frame.
  clearTimeout(statusTimer);
  if (now) renderStatus();
  else statusTimer = setTimeout(renderStatus, STATUS_DEBOUNCE_MS);
}

const STATUS_TEXT = {
  connecting: 'Connecting…',
  connected: 'Connected',
  reconnecting: 'Reconnecting…',
  disconnected: 'Disconnected, retrying…',
};

function renderStatus() {
  clearTimeout(statusTimer);
  dom.status.dataset.state = connection;
  dom.statusText.textContent = STATUS_TEXT[connection] ?? connection;
  const live = Number(dom.statusCounts.dataset.liveCount ?? 0);
  if (connection === 'connected' || everConnected) {
    const prefix = connection === 'connected' ? '' : 'last seen ';
    dom.statusCounts.textContent = ` · ${prefix}${plural(live, 'live actor')}`;
  } else {
    dom.statusCounts.textContent = '';
  }
}

function setConnection(next) {
  if (connection === next) return;
  connection = next;
  renderStatus();
}

// ---------------------------------------------------------------------------------------------------
// Loading and the feed

async function loadMachines() {
  if (machinesLoaded) return;
  machinesLoading ??= (async () => {
    try {
      const response = await fetch(MACHINES_URL, { headers: { accept: 'application/json' }, cache: 'no-store' });
      if (!response.ok) throw new Error(`HTTP ${response.status}`);
      const body = await response.json();
      const defs = body && typeof body.machines === 'object' && body.machines ? body.machines : {};
      for (const [key, def] of Object.entries(defs)) {
        if (!def || typeof def !== 'object') continue;
        const id = typeof def.id === 'string' ? def.id : key;
        machines.set(id, { ...def, id, states: def.states ?? {} });
      }
      // Definitions first, in the server's order; machines only seen in the feed after them.
      const seen = machineOrder.splice(0);
      machineOrder.push(...machines.keys(), ...seen.filter((m) => !machines.has(m)));
      for (const machine of machineOrder) ensureSection(machine);
      placeSections();
      renderMachineFilters();
      machinesLoaded = true;
      dom.loadError.hidden = true;
      for (const actor of actors.values()) attachChart(actor);
      refreshCounts(true);
    } catch (error) {
      dom.loadError.textContent = `Could not load the machine definitions (${error instanceof Error ? error.message : error}); cards are shown without their statecharts until they load.`;
      dom.loadError.hidden = false;
      clearTimeout(machinesRetryTimer);
      machinesRetryTimer = setTimeout(loadMachines, machinesRetryDelay);
      machinesRetryDelay = Math.min(60_000, machinesRetryDelay * 2);
    } finally {
      machinesLoading = null;
    }
  })();
  return machinesLoading;
}

function connect() {
  clearTimeout(retryTimer);
  source?.close();
  const es = new EventSource(EVENTS_URL);
  source = es;
  const handle = (event) => {
    if (source !== es) return;
    let frame;
    try {
      frame = JSON.parse(event.data);
    } catch {
      return;
    }
    onFrame(frame, event.type === 'message' ? undefined : event.type);
  };
  es.addEventListener('message', handle);
  // The frames may also come as named events (`event: transition`); both are understood.
  for (const type of FRAME_TYPES) es.addEventListener(type, handle);
  es.addEventListener('open', () => {
    if (source !== es) return;
    retryDelay = 1_000;
    setConnection('connected');
    if (!machinesLoaded) loadMachines();
  });
  es.addEventListener('error', () => {
    if (source !== es) return;
    if (es.readyState === EventSource.CLOSED) {
      // The browser gave up (an HTTP error, say): try again ourselves, more slowly each time.
      setConnection('disconnected');
      retryTimer = setTimeout(connect, retryDelay);
      retryDelay = Math.min(30_000, retryDelay * 2);
    } else {
      setConnection(everConnected ? 'reconnecting' : 'connecting');
    }
  });
}

setInterval(() => {
  for (const actor of actors.values()) if (actor.status !== 'stopped') updateAge(actor);
}, 1_000);

renderStatus();
loadMachines();
connect();
