// A statechart drawn as inline SVG: the current state highlighted, the last arrow taken flashing.

import { G } from './statechartLayout.js';
import { delayLabel, topState } from './xstateNames.js';

export const FLASH_MS = 1_600;

const SVG_NS = 'http://www.w3.org/2000/svg';

/** Creates an SVG element; `text` sets its text, other attrs are attributes. */
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

/** The statechart of one actor, as inline SVG; `setCurrent` moves the highlight. */
export function renderChart(layout, machine) {
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
