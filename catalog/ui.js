// What the pages share: building elements, controls, and the drawing surface — the SVG the
// daemon's `render` method draws, with an overlay of the page's own in the layout's space.
import { rpc } from "./rpc.js";

/** An element: `h("div", {class: "x", onclick: f}, child, "text", …)`. */
export function h(tag, attributes = {}, ...children) {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (value === undefined || value === null || value === false) continue;
    if (name.startsWith("on")) element.addEventListener(name.slice(2), value);
    else if (name === "text") element.textContent = value;
    else element.setAttribute(name, value === true ? "" : value);
  }
  element.append(...children.filter((c) => c !== null && c !== undefined));
  return element;
}

/** A labelled range slider that calls `onchange(value)` as it moves. */
export function slider(label, { min, max, step = 1, value, id }, onchange) {
  const input = h("input", { type: "range", min, max, step, value, id });
  const output = h("output", { text: String(value) });
  input.addEventListener("input", () => { output.textContent = input.value; onchange(Number(input.value)); });
  return h("label", {}, label, input, output);
}

/** A labelled select of `options` ([value, text] pairs or values). */
export function choice(label, options, value, onchange, id) {
  const select = h("select", { id });
  for (const option of options) {
    const [v, text] = Array.isArray(option) ? option : [option, option];
    select.append(h("option", { value: v, text, selected: v === value }));
  }
  select.addEventListener("change", () => onchange(select.value));
  return h("label", {}, label, select);
}

/** A labelled input (text, colour, …) that calls `onchange(value)` as it is edited. */
export function field(label, attributes, onchange) {
  const input = h("input", attributes);
  input.addEventListener("input", () => onchange(input.value));
  return h("label", {}, label, input);
}

export function checkbox(label, checked, onchange, id) {
  const input = h("input", { type: "checkbox", checked, id });
  input.addEventListener("change", () => onchange(input.checked));
  return h("label", {}, input, label);
}

export function textArea(value, onchange, id) {
  const area = h("textarea", { id, spellcheck: "false" });
  area.value = value;
  area.addEventListener("input", () => onchange(area.value));
  return h("label", { class: "wide" }, area);
}

/** Calls `f` at most once per animation frame, with the latest arguments. */
export function throttled(f) {
  let pending = null;
  return (...args) => {
    const first = pending === null;
    pending = args;
    if (first) requestAnimationFrame(() => { const a = pending; pending = null; f(...a); });
  };
}

/** Points of room `render` leaves around the text, so pills and carets at the edges show. */
export const MARGIN = 8;

const SVG = "http://www.w3.org/2000/svg";

/** The drawing: the daemon's SVG (`render`) and an overlay the page draws on, both in the
 *  layout's points, the overlay's origin at the layout box's top-left corner. */
export class Surface {
  constructor(id) {
    this.picture = h("div", { class: "picture" });
    this.overlay = document.createElementNS(SVG, "svg");
    this.overlay.setAttribute("class", "overlay");
    this.element = h("div", { class: "surface", id }, this.picture, this.overlay);
    this.layers = new Map();
  }

  /** Draws the retained layout `handle` with `render` (SVG), `options` added. */
  async draw(handle, options = {}) {
    const picture = await rpc("render", { handle, format: "svg", margin: MARGIN, background: "transparent", ...options });
    this.picture.innerHTML = picture.data;
    const width = picture.width, height = picture.height;
    this.overlay.setAttribute("width", width);
    this.overlay.setAttribute("height", height);
    this.overlay.setAttribute("viewBox", `${-MARGIN} ${-MARGIN} ${width} ${height}`);
    return picture;
  }

  /** The point of a mouse event in the layout's space. */
  point(event) {
    const box = this.picture.getBoundingClientRect();
    return { x: event.clientX - box.left - MARGIN, y: event.clientY - box.top - MARGIN };
  }

  /** Replaces the layer `name`'s rectangles with `rects`, each drawn with class `kind`. */
  rects(name, rects, kind = name, fill) {
    const layer = this.layer(name);
    layer.replaceChildren(...rects.map((r) => {
      const rect = document.createElementNS(SVG, "rect");
      for (const [k, v] of Object.entries({ x: r.x, y: r.y, width: r.width, height: r.height })) rect.setAttribute(k, v);
      rect.setAttribute("class", kind);
      if (fill) { rect.setAttribute("fill", fill); rect.setAttribute("stroke", fill); }
      return rect;
    }));
  }

  /** Replaces the layer `name` with one vertical line (a caret). */
  caret(name, x, y, height) {
    const line = document.createElementNS(SVG, "line");
    for (const [k, v] of Object.entries({ x1: x, x2: x, y1: y, y2: y + height })) line.setAttribute(k, v);
    line.setAttribute("class", "caret");
    this.layer(name).replaceChildren(line);
  }

  /** Replaces the layer `name` with a renderer's `decorations` (layout's lines[].decorations):
   *  rects and rounded rects filled, lines stroked, each in its colour, half transparent. */
  decorations(name, shapes) {
    this.layer(name).replaceChildren(...shapes.map((d) => {
      const line = d.shape === "line";
      const shape = document.createElementNS(SVG, line ? "line" : "rect");
      const attributes = line
        ? { x1: d.x0, y1: d.y0, x2: d.x1, y2: d.y1, stroke: d.color, "stroke-width": d.thickness }
        : { x: d.x, y: d.y, width: d.width, height: d.height, rx: d.radius || 0, fill: d.color, "fill-opacity": 0.55 };
      for (const [k, v] of Object.entries(attributes)) shape.setAttribute(k, v);
      return shape;
    }));
  }

  clear(name) { this.layer(name).replaceChildren(); }

  layer(name) {
    if (!this.layers.has(name)) {
      const group = document.createElementNS(SVG, "g");
      this.overlay.append(group);
      this.layers.set(name, group);
    }
    return this.layers.get(name);
  }
}

/** One retained layout of a page: laid out again when its params change, the handle before
 *  it released (the daemon's store is shared; a page should not fill it). */
export class RetainedLayout {
  constructor() { this.handle = null; this.result = null; }

  async layout(params) {
    const result = await rpc("layout", { ...params, retain: true });
    await this.release();
    this.handle = result.handle;
    this.result = result;
    return result;
  }

  async update(changes) {
    const result = await rpc("update", { handle: this.handle, ...changes });
    this.result = result;
    return result;
  }

  async release() {
    if (!this.handle) return;
    const handle = this.handle;
    this.handle = null;
    try { await rpc("release", { handle }); } catch { /* already evicted: nothing to free */ }
  }
}

/** A table of `rows` (arrays of cells: strings or elements) under `headings`. */
export function table(headings, rows, id) {
  return h("table", { class: "data", id },
    h("thead", {}, h("tr", {}, ...headings.map((t) => h("th", { text: t })))),
    h("tbody", {}, ...rows.map((row) => h("tr", {}, ...row.map((cell) =>
      cell instanceof Node ? h("td", {}, cell) : h("td", { text: String(cell) }))))));
}

/** Colours for telling runs and fonts apart. */
export const PALETTE = ["#1a73e8", "#d93025", "#188038", "#f29900", "#8430ce", "#12b5cb", "#e52592", "#795548"];

export function round(n) { return Math.round(n * 10) / 10; }

/** Wraps an async `f` so that calls never overlap: a call made while one runs waits, and
 *  of several waiting only the latest runs (a slider dragged fast lays out what it ends on). */
export function serialized(f) {
  let running = null, queued = null;
  const run = async (args) => {
    try { await f(...args); } catch (error) { console.warn(error); }
    if (queued) { const next = queued; queued = null; running = run(next); await running; } else running = null;
  };
  return (...args) => {
    if (running) { queued = args; return running; }
    running = run(args);
    return running;
  };
}
