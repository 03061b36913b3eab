// Interaction: every answer to "what is under the pointer" comes from the daemon — hitTest
// for hover and clicks, rects and selectedText for a drag, word for a double click,
// lineRange for a triple click, caret for where the caret goes and its affinity.
import { rpc } from "../rpc.js";
import { h, slider, Surface, RetainedLayout, serialized, throttled } from "../ui.js";

const TEXT = "Tap the link, or select some text with the mouse. Double-click a word, triple-click a line; the caret follows every click, and a disabled link does nothing.";
const LINK = { start: 8, end: 12, link: "https://example.com/docs", color: "#1a73e8" };
const DISABLED = { start: TEXT.indexOf("a disabled link"), end: TEXT.indexOf("a disabled link") + 15, link: "https://example.com/off", enabled: false };

export default {
  id: "interaction",
  title: "Interaction",
  summary: "Hover, click a link, drag to select, double- and triple-click, the caret and its affinity.",
  async show(root) {
    let width = 320;
    const retained = new RetainedLayout();
    const surface = new Surface("interaction-surface");
    const hover = h("div", { class: "status", id: "hover" });
    const clicked = h("div", { class: "status", id: "clicked" });
    const selection = h("div", { class: "status", id: "selection" });
    const selectedText = h("output", { id: "selected-text" });
    const caret = h("div", { class: "status", id: "caret" });
    root.append(
      h("h2", { text: this.title }),
      h("p", { class: "explain", text: "Move the pointer over the text: hitTest names the caret offset, the character and the region under it (its rects, drawn in yellow, come from the layout). Click the link and the page names where it goes; drag to select — the rectangles are rects' answer and the text selectedText's; double-click selects the word (word), triple-click the line (lineRange). After a click, caret says where the caret goes: at the end of a wrapped line its affinity is upstream." }),
      h("div", { class: "controls" }, slider("width", { min: 120, max: 600, value: width, id: "width" }, (v) => { width = v; relayout(); })),
      surface.element, hover, clicked, selection, h("div", { class: "status" }, "selected text: ", selectedText), caret);

    const relayout = serialized(async () => {
      const result = await retained.layout({ text: TEXT, width, spans: [LINK, DISABLED] });
      window.catalog.state = { page: "interaction", layout: result, handle: retained.handle, text: TEXT };
      await surface.draw(retained.handle);
      for (const layer of ["hover", "selection", "caret"]) surface.clear(layer);
    });

    const hitTest = (point) => rpc("hitTest", { handle: retained.handle, x: point.x, y: point.y });

    // Hover: the region under the pointer, outlined with the layout's own rects for it.
    const showHover = throttled(async (point) => {
      if (pressed || drag || !retained.handle) return;
      const hit = await hitTest(point);
      const region = hit.region;
      const rects = region ? retained.result.regions.filter((r) => r.start === region.start && r.end === region.end).flatMap((r) => r.rects) : [];
      surface.rects("hover", rects, "hover");
      hover.replaceChildren("under the pointer: index ", h("strong", { text: String(hit.index) }),
        `, character ${hit.character ?? "none"}, line ${hit.line}`,
        region ? ` — ${region.kind}${region.enabled === false ? " (disabled)" : ""} ${JSON.stringify(region.value ?? "")}` : "");
    });

    async function select(start, end) {
      const [from, to] = start <= end ? [start, end] : [end, start];
      const { rects } = await rpc("rects", { handle: retained.handle, start: from, end: to });
      surface.rects("selection", rects, "selection");
      const { text } = await rpc("selectedText", { layouts: [{ handle: retained.handle }], start: { layout: 0, index: from }, end: { layout: 0, index: to } });
      selection.textContent = `selection [${from}, ${to})`;
      selectedText.textContent = text;
    }

    async function placeCaret(hit) {
      const place = await rpc("caret", { handle: retained.handle, index: hit.index, affinity: hit.affinity });
      surface.caret("caret", place.x, place.y, place.height);
      caret.textContent = `caret at ${hit.index}, x ${place.x}, line ${place.line}, affinity ${hit.affinity}${place.weak ? `, weak caret at x ${place.weak.x}` : ""}`;
    }

    // A press, the moves of a drag and the release, in order: each waits for the one before
    // (a first-in, first-out chain); of the moves waiting, only the latest is sent.
    let drag = null, pressed = false, chain = Promise.resolve(), waitingMove = null;
    const enqueue = (op) => { chain = chain.then(op).catch((error) => console.warn(error)); };
    async function press(point, clicks) {
      const hit = await hitTest(point);
      if (clicks === 2) {
        const word = await rpc("word", { handle: retained.handle, index: hit.character ?? hit.index });
        await select(word.start, word.end);
      } else if (clicks >= 3) {
        const line = await rpc("lineRange", { handle: retained.handle, index: hit.index, affinity: hit.affinity });
        await select(line.start, line.end);
      } else {
        drag = { anchor: hit.index, moved: false };
      }
    }
    async function move() {
      const point = waitingMove;
      waitingMove = null;
      if (!drag || !point) return;
      const hit = await hitTest(point);
      if (hit.index !== drag.anchor) { drag.moved = true; await select(drag.anchor, hit.index); }
    }
    async function release(point) {
      if (!drag) return;
      const hit = await hitTest(point);
      const press = drag;
      drag = null;
      if (press.moved || hit.index !== press.anchor) { await select(press.anchor, hit.index); return; }
      // A click: the caret goes there; on an enabled link, the link is followed (named).
      surface.clear("selection");
      selection.textContent = "";
      selectedText.textContent = "";
      await placeCaret(hit);
      const region = hit.region;
      if (region && region.kind !== "truncation") {
        clicked.textContent = region.enabled === false
          ? `clicked a disabled ${region.kind}: ${region.value} (not followed)`
          : `clicked ${region.kind}: ${region.value}`;
      }
    }

    surface.element.addEventListener("mousedown", (e) => {
      e.preventDefault();
      pressed = e.detail < 2;
      const point = surface.point(e), clicks = e.detail;
      enqueue(() => press(point, clicks));
    });
    surface.element.addEventListener("mousemove", (e) => {
      const point = surface.point(e);
      if (!pressed) { showHover(point); return; }
      const first = waitingMove === null;
      waitingMove = point;
      if (first) enqueue(move);
    });
    window.addEventListener("mouseup", onUp);
    function onUp(e) {
      if (!pressed) return;
      pressed = false;
      const point = surface.point(e);
      enqueue(() => release(point));
    }

    await relayout();
    return async () => { window.removeEventListener("mouseup", onUp); await retained.release(); };
  },
};
