// Paragraph styles: alignment, spacing, indents, tab stops — and exclusions: drag a
// rectangle over the text and update lays it out around it, without shaping it again.
import { h, slider, choice, checkbox, textArea, Surface, RetainedLayout, serialized } from "../ui.js";

const TEXT = "Paragraph styles follow what rich-text users know: alignment, line and paragraph spacing, head, tail and first-line indents.\nDrag a rectangle over this text: it becomes an exclusion, and the lines flow around it on both sides, as TextKit's exclusion paths make them.\nItem\tQty\tPrice\nApples\t12\t3.50\nCherries\t250\t12.25";

export default {
  id: "paragraph",
  title: "Paragraph styles",
  summary: "Alignment, spacing, indents, tab stops, and exclusions the text flows around.",
  async show(root) {
    const state = { text: TEXT, width: 460, align: "start", lineSpacing: 0, paragraphSpacing: 8, headIndent: 0, firstLineIndent: 0, tailIndent: 0, tabs: true, exclusions: [] };
    const retained = new RetainedLayout();
    const surface = new Surface("paragraph-surface");
    const status = h("div", { class: "status", id: "paragraph-status" });
    const control = (name, min, max) => slider(name, { min, max, value: state[name], id: name }, (v) => { state[name] = v; relayout(); });
    const clear = h("button", { id: "clear-exclusions", text: "clear exclusions" });
    root.append(
      h("h2", { text: this.title }),
      h("p", { class: "explain", text: "paragraph.align places each line (justify stretches the spaces of all but a paragraph's last line); lineSpacing and paragraphSpacing add room after lines and paragraphs; headIndent, firstLineIndent and tailIndent narrow the lines. The table below the prose uses tabStops: a left stop, a right one and a decimal one, which lines up the prices on their points. Drag a rectangle on the drawing to add an exclusion (dashed): update sends the new exclusions, and diff.reshapedParagraphs stays 0 — lines are broken again, words are not shaped again." }),
      h("div", { class: "controls" },
        textArea(state.text, (v) => { state.text = v; relayout(); }, "text"),
        slider("width", { min: 160, max: 700, value: state.width, id: "width" }, (v) => { state.width = v; relayout(); }),
        choice("align", ["start", "end", "left", "right", "center", "justify"], state.align, (v) => { state.align = v; relayout(); }, "align"),
        control("lineSpacing", 0, 20), control("paragraphSpacing", 0, 30),
        control("headIndent", 0, 80), control("firstLineIndent", -40, 80), control("tailIndent", 0, 80),
        checkbox("tab stops", state.tabs, (v) => { state.tabs = v; relayout(); }, "tabs"), clear),
      surface.element, status);

    const paragraph = () => {
      const p = { align: state.align, lineSpacing: state.lineSpacing, paragraphSpacing: state.paragraphSpacing,
        headIndent: state.headIndent, firstLineIndent: state.firstLineIndent, tailIndent: state.tailIndent };
      if (state.tabs) p.tabStops = [{ location: 110, alignment: "left" }, { location: 200, alignment: "right" }, { location: 280, alignment: "decimal" }];
      return p;
    };
    async function show(result) {
      window.catalog.state = { page: "paragraph", layout: result, handle: retained.handle, exclusions: state.exclusions };
      await surface.draw(retained.handle, { overlay: true });
      surface.rects("exclusions", state.exclusions, "exclusion");
      status.textContent = `${result.lines.length} lines, ${state.exclusions.length} exclusions` +
        (result.diff ? `; update reshaped ${result.diff.reshapedParagraphs} paragraphs and kept ${result.diff.reusedParagraphs}` : "");
    }
    const relayout = serialized(async () => {
      await show(await retained.layout({ text: state.text, width: state.width, paragraph: paragraph(), exclusions: state.exclusions }));
    });
    const exclude = serialized(async () => show(await retained.update({ exclusions: state.exclusions })));
    clear.addEventListener("click", () => { state.exclusions = []; surface.clear("draft"); exclude(); });

    // Dragging a rectangle: drawn as it grows, sent when released.
    let from = null;
    const boxOf = (a, b) => ({ x: Math.max(0, Math.min(a.x, b.x)), y: Math.max(0, Math.min(a.y, b.y)), width: Math.abs(a.x - b.x), height: Math.abs(a.y - b.y) });
    surface.element.addEventListener("mousedown", (e) => { e.preventDefault(); from = surface.point(e); });
    surface.element.addEventListener("mousemove", (e) => { if (from) surface.rects("draft", [boxOf(from, surface.point(e))], "exclusion"); });
    window.addEventListener("mouseup", onUp);
    function onUp(e) {
      if (!from) return;
      const box = boxOf(from, surface.point(e));
      from = null;
      surface.clear("draft");
      if (box.width < 4 || box.height < 4) return;
      state.exclusions = [...state.exclusions, box];
      exclude();
    }

    await relayout();
    return async () => { window.removeEventListener("mouseup", onUp); await retained.release(); };
  },
};
