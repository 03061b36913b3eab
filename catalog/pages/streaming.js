// Streaming: a reply arriving in small pieces, each appended with update; the ranges the
// diff says were inserted (diff.inserted) fade in, as LitextAnimation does for a model's
// streamed reply. Only the last paragraph is laid out again for each piece.
import { rpc } from "../rpc.js";
import { h, slider, Surface, RetainedLayout } from "../ui.js";

const REPLY = "Sure! Here is how layoutd streams a reply. Each piece of text that arrives is appended to the retained layout with update, which shapes only the new words and breaks only the last paragraph again.\nThe answer says which lines changed (firstLine, removed, added) and which ranges were inserted, so a client can fade in just those — here they glow green and fade. Paragraphs before the last one are reused as they were: watch reusedParagraphs grow in the wire panel.";

/** The reply cut into pieces of one to three words, as a model's tokens come. */
function pieces(text) {
  const words = text.match(/\S+\s*|\s+/g) || [];
  const out = [];
  for (let i = 0; i < words.length;) {
    const n = 1 + (i * 7 % 3);
    out.push(words.slice(i, i + n).join(""));
    i += n;
  }
  return out;
}

export default {
  id: "streaming",
  title: "Streaming",
  summary: "Text arriving piece by piece through update, the inserted ranges fading in.",
  async show(root) {
    const state = { width: 420, delay: 60, run: 0 };
    const retained = new RetainedLayout();
    const surface = new Surface("streaming-surface");
    const status = h("div", { class: "status", id: "streaming-status" });
    const start = h("button", { id: "stream", text: "stream again" });
    root.append(
      h("h2", { text: this.title }),
      h("p", { class: "explain", text: "The page lays out an empty retained text, then sends each piece with update {edits: [{start: end, end: end, text: piece}]}. Every answer is the whole new layout plus diff: the first changed line, how many lines went and came, the inserted ranges (widened to whole grapheme clusters), and how many paragraphs were reused or shaped again. The inserted ranges' rects (from rects) are drawn over the new picture and fade out." }),
      h("div", { class: "controls" },
        slider("width", { min: 160, max: 700, value: state.width, id: "width" }, (v) => { state.width = v; }),
        slider("delay (ms)", { min: 0, max: 300, step: 10, value: state.delay, id: "delay" }, (v) => { state.delay = v; }),
        start),
      surface.element, status);

    async function stream() {
      const run = ++state.run;
      await retained.layout({ text: "", width: state.width });
      let length = 0, count = 0;
      for (const piece of pieces(REPLY)) {
        if (run !== state.run) return;
        const result = await retained.update({ edits: [{ start: length, end: length, text: piece }] });
        length += piece.length;
        count += 1;
        await surface.draw(retained.handle);
        for (const range of result.diff.inserted) {
          const { rects } = await rpc("rects", { handle: retained.handle, start: range.start, end: range.end });
          fadeIn(rects);
        }
        window.catalog.state = { page: "streaming", layout: result, handle: retained.handle, pieces: count };
        status.textContent = `${count} pieces, ${length} characters, ${result.lines.length} lines; last diff: first line ${result.diff.firstLine}, ${result.diff.removed} removed, ${result.diff.added} added, ${result.diff.reusedParagraphs} paragraphs reused, ${result.diff.reshapedParagraphs} shaped`;
        await new Promise((done) => setTimeout(done, state.delay));
      }
      status.dataset.done = "true";
    }
    function fadeIn(rects) {
      const layer = surface.layer("inserted");
      const before = layer.childElementCount;
      surface.rects("fresh", rects, "inserted");
      const fresh = [...surface.layer("fresh").children];
      layer.append(...fresh);
      setTimeout(() => fresh.forEach((r) => r.remove()), 1300);
      return before;
    }
    start.addEventListener("click", () => { status.dataset.done = ""; stream(); });

    stream();
    return async () => { state.run += 1; await retained.release(); };
  },
};
