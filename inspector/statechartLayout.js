// The geometry of a statechart: where its states and arrows go (statechart.js draws them).

import { delayLabel, eventLabel } from './xstateNames.js';

const FONT_STACK = 'system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif';
const STATE_FONT = `500 12px ${FONT_STACK}`;
const LABEL_FONT = `11px ${FONT_STACK}`;
export const G = {
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
export function layoutMachine(def) {
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
