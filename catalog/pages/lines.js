// Lines and runs: the layout the daemon computes for a text, a width and a font, drawn by
// `render` with its overlay (line boxes red, baselines blue, regions green), with each run
// tinted by its font and the lines and runs listed.
import { rpc } from "../rpc.js";
import { h, slider, choice, checkbox, textArea, Surface, RetainedLayout, serialized, table, PALETTE, round } from "../ui.js";

const SAMPLE = "Hello, world! This is layoutd, laying out text over a Unix socket — ﬁne typography, kerning (AV, To), and a soft hy\u00adphen·ation point.";

export default {
  id: "lines",
  title: "Lines and runs",
  summary: "Text, a width and a font: line boxes, baselines, runs and the fonts they use.",
  async show(root) {
    const state = { text: SAMPLE, width: 300, family: "Noto Sans", size: 16, weight: 400, overlay: true, runs: true };
    const { fonts } = await rpc("stats");
    const families = fonts.families.filter((f) => !/Emoji/.test(f));
    const retained = new RetainedLayout();
    const surface = new Surface("lines-surface");
    const summary = h("div", { class: "status", id: "lines-summary" });
    const details = h("div");
    root.append(
      h("h2", { text: this.title }),
      h("p", { class: "explain", text: "layout breaks the text into lines at the width: each line has a box (x, y, width, height), a baseline and its ascent and descent; with detail \"runs\" each line lists its runs — stretches of one font and one bidi level — and the fonts they use. The picture is render's SVG with overlay: red line boxes, blue baselines. The tinted bands are the runs, one colour per font." }),
      h("div", { class: "controls" },
        textArea(state.text, (v) => { state.text = v; relayout(); }, "text"),
        slider("width", { min: 40, max: 700, value: state.width, id: "width" }, (v) => { state.width = v; relayout(); }),
        choice("font", families, state.family, (v) => { state.family = v; relayout(); }, "family"),
        slider("size", { min: 8, max: 48, value: state.size, id: "size" }, (v) => { state.size = v; relayout(); }),
        slider("weight", { min: 100, max: 900, step: 100, value: state.weight, id: "weight" }, (v) => { state.weight = v; relayout(); }),
        checkbox("overlay", state.overlay, (v) => { state.overlay = v; relayout(); }, "overlay"),
        checkbox("runs", state.runs, (v) => { state.runs = v; relayout(); }, "runs")),
      surface.element, summary, details);

    const relayout = serialized(async () => {
      const result = await retained.layout({
        text: state.text, width: state.width, detail: "runs",
        font: { family: state.family, size: state.size, weight: state.weight },
      });
      window.catalog.state = { page: "lines", layout: result, handle: retained.handle };
      await surface.draw(retained.handle, { overlay: state.overlay });
      const runRects = [];
      result.lines.forEach((line) => (line.runs || []).forEach((run) =>
        runRects.push({ x: run.x, y: line.y, width: run.width, height: line.height, font: run.font })));
      const layer = surface.layer("runs");
      layer.replaceChildren();
      if (state.runs) for (const [i, color] of PALETTE.entries()) {
        const group = runRects.filter((r) => r.font % PALETTE.length === i);
        if (group.length) { surface.rects(`runs-${i}`, group, "run", color); }
        else surface.clear(`runs-${i}`);
      } else PALETTE.forEach((_, i) => surface.clear(`runs-${i}`));
      summary.textContent = `size ${round(result.size.width)} × ${round(result.size.height)} points, ${result.lines.length} lines${result.truncated ? ", truncated" : ""}`;
      details.replaceChildren(
        h("h3", { text: "Fonts" }),
        table(["#", "family", "file", "size"], result.fonts.map((f, i) =>
          [h("span", {}, h("span", { class: "swatch", style: `background:${PALETTE[i % PALETTE.length]}` }), String(i)), f.family, f.file, f.size]), "fonts"),
        h("h3", { text: "Lines" }),
        table(["line", "range", "x", "y", "width", "height", "baseline", "runs", "text"], result.lines.map((line, i) => [
          i, `[${line.start}, ${line.end})`, round(line.x), round(line.y), round(line.width), round(line.height), round(line.baseline),
          (line.runs || []).map((r) => `[${r.start}, ${r.end}) font ${r.font} ${r.direction}`).join("; "),
          state.text.slice(line.start, line.end) + (line.hyphenated ? "‐" : ""),
        ]), "lines"));
    });

    await relayout();
    return () => retained.release();
  },
};
