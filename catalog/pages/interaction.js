// Interaction: every answer to "what is under the pointer" comes from the daemon — hitTest
// for hover and clicks, rects and selectedText for a drag, word for a double click,
// lineRange for a triple click, caret for where the caret goes and its affinity.
import { rpc } from "../rpc.js";
import { h, slider, Surface, RetainedLayout, serialized, throttled } from "../ui.js";

const TEXT = "Tap the link, or select some text with the mouse. Double-click a word, triple-click a line; the caret follows every click, and a disabled link does nothing.";
const LINK = { start: 8, end: 12, link: "https://example.com/docs", color: "#1a73e8" };
const DISABLED = { start: TEXT.indexOf("a disabled link"), end: TEXT.indexOf("a disabled link") + 15, link: "https://example.com/off", enabled: false };
const EXPLAIN = "Move the pointer over the text: hitTest names the caret offset, the character and the region under it (its rects, drawn in yellow, come from the layout). Click the link and the page names where it goes; drag to select — the rectangles are rects' answer and the text selectedText's; double-click selects the word (word), triple-click the line (lineRange). After a click, caret says where the caret goes: at the end of a wrapped line its affinity is upstream.";

class InteractionPage {
  constructor(root, title) {
    this.width = 320;
    this.retained = new RetainedLayout();
    this.surface = new Surface("interaction-surface");
    this.status = {
      hover: h("div", { class: "status", id: "hover" }), clicked: h("div", { class: "status", id: "clicked" }),
      selection: h("div", { class: "status", id: "selection" }), text: h("output", { id: "selected-text" }),
      caret: h("div", { class: "status", id: "caret" }),
    };
    this.relayout = serialized(() => this.layOut());
    root.append(h("h2", { text: title }), h("p", { class: "explain", text: EXPLAIN }),
      h("div", { class: "controls" }, slider("width", { min: 120, max: 600, value: this.width, id: "width" }, (v) => { this.width = v; this.relayout(); })),
      this.surface.element, this.status.hover, this.status.clicked, this.status.selection,
      h("div", { class: "status" }, "selected text: ", this.status.text), this.status.caret);
    // A press, the moves of a drag and the release, in order: each waits for the one before
    // (a first-in, first-out chain); of the moves waiting, only the latest is sent.
    this.drag = null;
    this.pressed = false;
    this.chain = Promise.resolve();
    this.waitingMove = null;
    this.showHover = throttled((point) => this.hover(point));
    this.onUp = (e) => this.mouseUp(e);
    this.listen();
  }

  async layOut() {
    const result = await this.retained.layout({ text: TEXT, width: this.width, spans: [LINK, DISABLED] });
    window.catalog.state = { page: "interaction", layout: result, handle: this.retained.handle, text: TEXT };
    await this.surface.draw(this.retained.handle);
    for (const layer of ["hover", "selection", "caret"]) this.surface.clear(layer);
  }

  hitTest(point) { return rpc("hitTest", { handle: this.retained.handle, x: point.x, y: point.y }); }

  /** The region under the pointer, outlined with the layout's own rects for it. */
  async hover(point) {
    if (this.pressed || this.drag || !this.retained.handle) return;
    const hit = await this.hitTest(point);
    const region = hit.region;
    const rects = region ? this.retained.result.regions.filter((r) => r.start === region.start && r.end === region.end).flatMap((r) => r.rects) : [];
    this.surface.rects("hover", rects, "hover");
    this.status.hover.replaceChildren("under the pointer: index ", h("strong", { text: String(hit.index) }),
      `, character ${hit.character ?? "none"}, line ${hit.line}`,
      region ? ` — ${region.kind}${region.enabled === false ? " (disabled)" : ""} ${JSON.stringify(region.value ?? "")}` : "");
  }

  async select(start, end) {
    const [from, to] = start <= end ? [start, end] : [end, start];
    const handle = this.retained.handle;
    const { rects } = await rpc("rects", { handle, start: from, end: to });
    this.surface.rects("selection", rects, "selection");
    const { text } = await rpc("selectedText", { layouts: [{ handle }], start: { layout: 0, index: from }, end: { layout: 0, index: to } });
    this.status.selection.textContent = `selection [${from}, ${to})`;
    this.status.text.textContent = text;
  }

  async placeCaret(hit) {
    const place = await rpc("caret", { handle: this.retained.handle, index: hit.index, affinity: hit.affinity });
    this.surface.caret("caret", place.x, place.y, place.height);
    this.status.caret.textContent = `caret at ${hit.index}, x ${place.x}, line ${place.line}, affinity ${hit.affinity}${place.weak ? `, weak caret at x ${place.weak.x}` : ""}`;
  }

  enqueue(op) { this.chain = this.chain.then(op).catch((error) => console.warn(error)); }

  async press(point, clicks) {
    const hit = await this.hitTest(point);
    const handle = this.retained.handle;
    if (clicks === 2) {
      const word = await rpc("word", { handle, index: hit.character ?? hit.index });
      await this.select(word.start, word.end);
    } else if (clicks >= 3) {
      const line = await rpc("lineRange", { handle, index: hit.index, affinity: hit.affinity });
      await this.select(line.start, line.end);
    } else {
      this.drag = { anchor: hit.index, moved: false };
    }
  }

  async move() {
    const point = this.waitingMove;
    this.waitingMove = null;
    if (!this.drag || !point) return;
    const hit = await this.hitTest(point);
    if (hit.index !== this.drag.anchor) { this.drag.moved = true; await this.select(this.drag.anchor, hit.index); }
  }

  async release(point) {
    if (!this.drag) return;
    const hit = await this.hitTest(point);
    const press = this.drag;
    this.drag = null;
    if (press.moved || hit.index !== press.anchor) { await this.select(press.anchor, hit.index); return; }
    // A click: the caret goes there; on an enabled link, the link is followed (named).
    this.surface.clear("selection");
    this.status.selection.textContent = "";
    this.status.text.textContent = "";
    await this.placeCaret(hit);
    const region = hit.region;
    if (region && region.kind !== "truncation") {
      this.status.clicked.textContent = region.enabled === false
        ? `clicked a disabled ${region.kind}: ${region.value} (not followed)`
        : `clicked ${region.kind}: ${region.value}`;
    }
  }

  listen() {
    const element = this.surface.element;
    element.addEventListener("mousedown", (e) => {
      e.preventDefault();
      this.pressed = e.detail < 2;
      const point = this.surface.point(e), clicks = e.detail;
      this.enqueue(() => this.press(point, clicks));
    });
    element.addEventListener("mousemove", (e) => {
      const point = this.surface.point(e);
      if (!this.pressed) { this.showHover(point); return; }
      const first = this.waitingMove === null;
      this.waitingMove = point;
      if (first) this.enqueue(() => this.move());
    });
    window.addEventListener("mouseup", this.onUp);
  }

  mouseUp(e) {
    if (!this.pressed) return;
    this.pressed = false;
    const point = this.surface.point(e);
    this.enqueue(() => this.release(point));
  }

  async close() {
    window.removeEventListener("mouseup", this.onUp);
    await this.retained.release();
  }
}

export default {
  id: "interaction",
  title: "Interaction",
  summary: "Hover, click a link, drag to select, double- and triple-click, the caret and its affinity.",
  async show(root) {
    const page = new InteractionPage(root, this.title);
    await page.relayout();
    return () => page.close();
  },
};
