// International text: bidi (UAX #9), scripts, emoji sequences and font fallback, with the
// font the daemon chose for each run named.
import { h, choice, textArea, slider, Surface, RetainedLayout, serialized, table, PALETTE } from "../ui.js";

const SAMPLES = {
  "Mixed directions": "Hello, world — שלום עולם (\"peace\") — مرحبا بالعالم 2024 — back to English.",
  "Many scripts": "English, Ελληνικά, Русский, हिन्दी, বাংলা, ไทยภาษาไทย, 日本語のテキスト, 한국어, 中文字符.",
  "Emoji sequences": "Skin tones 👍🏽 👋🏿, families 👨‍👩‍👧‍👦, flags 🇫🇷 🇯🇵, keycaps 1️⃣ #️⃣, text ☺︎ and emoji ☺️ presentation.",
  "Right to left": "עברית עם English בתוך המשפט, ומספרים 123-456 ו-(סוגריים).",
  "Arabic shaping": "العربية تتصل حروفها: كتب، كاتب، مكتوب — والأرقام ١٢٣ و 456.",
};

export default {
  id: "international",
  title: "International text",
  summary: "Bidi, scripts, emoji sequences, and the fallback font of every run.",
  async show(root) {
    const state = { text: SAMPLES["Mixed directions"], width: 360, direction: "auto", language: "" };
    const retained = new RetainedLayout();
    const surface = new Surface("international-surface");
    const area = textArea(state.text, (v) => { state.text = v; relayout(); }, "text");
    const runs = h("div");
    root.append(
      h("h2", { text: this.title }),
      h("p", { class: "explain", text: "Each paragraph gets bidi levels (UAX #9) and each grapheme cluster a font: the requested family when it has the cluster, else the first fallback font for its script and language; emoji sequences go to the colour emoji font whole. Runs — one font, one level — are listed in visual order with the font the daemon picked. Odd levels run right to left." }),
      h("div", { class: "controls" },
        choice("sample", Object.keys(SAMPLES), "Mixed directions", (v) => { state.text = SAMPLES[v]; area.querySelector("textarea").value = state.text; relayout(); }, "sample"),
        choice("direction", ["auto", "ltr", "rtl"], state.direction, (v) => { state.direction = v; relayout(); }, "direction"),
        choice("language", [["", "(none)"], "en", "he", "ar", "hi", "th", "ja", "zh-Hans", "ko"], "", (v) => { state.language = v; relayout(); }, "language"),
        slider("width", { min: 80, max: 700, value: state.width, id: "width" }, (v) => { state.width = v; relayout(); }),
        area),
      surface.element, runs);

    const relayout = serialized(async () => {
      const params = { text: state.text, width: state.width, direction: state.direction, detail: "runs" };
      if (state.language) params.language = state.language;
      const result = await retained.layout(params);
      window.catalog.state = { page: "international", layout: result, handle: retained.handle };
      await surface.draw(retained.handle, { overlay: true });
      const rows = [];
      result.lines.forEach((line, i) => (line.runs || []).forEach((run) => {
        const font = result.fonts[run.font];
        rows.push([i, h("span", {}, h("span", { class: "swatch", style: `background:${PALETTE[run.font % PALETTE.length]}` }), font.family),
          run.direction, run.level, `[${run.start}, ${run.end})`, state.text.slice(run.start, run.end)]);
      }));
      PALETTE.forEach((color, f) => surface.rects(`runs-${f}`, result.lines.flatMap((line) => (line.runs || [])
        .filter((run) => run.font % PALETTE.length === f).map((run) => ({ x: run.x, y: line.y, width: run.width, height: line.height }))), "run", color));
      runs.replaceChildren(h("h3", { text: "Runs, left to right on each line" }),
        table(["line", "font", "direction", "level", "range", "text"], rows, "runs"));
    });

    await relayout();
    return () => retained.release();
  },
};
