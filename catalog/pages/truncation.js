// Truncation: maxLines and the modes, and a styled "… more" token that is a region of its
// own — clicking it (hitTest finds the truncation region) expands the message with update,
// which lays the text out again without shaping it; "less" collapses it.
import { rpc } from "../rpc.js";
import { h, slider, choice, field, textArea, Surface, RetainedLayout, serialized } from "../ui.js";

const MESSAGE = "Streaming replies grow long. A chat list shows the first lines of each message and a \"… more\" token at the end of the last one; tapping the token shows the whole message, and \"less\" folds it again. layoutd cuts the text at a grapheme boundary so that the token fits, and reports the token as a region whose range is the hidden text.";

export default {
  id: "truncation",
  title: "Truncation",
  summary: "maxLines, tail, head, middle and clip, and a \"… more\" token that expands the message.",
  async show(root) {
    const state = { text: MESSAGE, width: 320, maxLines: 3, mode: "tail", token: "… more", color: "#1a73e8", expanded: false };
    const retained = new RetainedLayout();
    const surface = new Surface("truncation-surface");
    const status = h("div", { class: "status", id: "truncation-state" });
    const less = h("button", { class: "token-less", id: "less", hidden: true, text: "less" });
    root.append(
      h("h2", { text: this.title }),
      h("p", { class: "explain", text: "With paragraph.maxLines, text past that many lines is cut and the truncation token (here a coloured \"… more\", laid out in its own style) marks where. Its region (kind truncation) covers the hidden text. Click the token: the page asks hitTest what is under the pointer and, on the token, sends update with maxLines 0 — the retained layout is laid out again without shaping (diff.reshapedParagraphs is 0). \"less\" puts the limit back." }),
      h("div", { class: "controls" },
        textArea(state.text, (v) => { state.text = v; relayout(); }, "text"),
        slider("width", { min: 80, max: 600, value: state.width, id: "width" }, (v) => { state.width = v; relayout(); }),
        slider("maxLines", { min: 0, max: 8, value: state.maxLines, id: "max-lines" }, (v) => { state.maxLines = v; relayout(); }),
        choice("mode", ["tail", "head", "middle", "clip"], state.mode, (v) => { state.mode = v; relayout(); }, "mode"),
        field("token", { value: state.token, size: 8, id: "token" }, (v) => { state.token = v; relayout(); }),
        field("colour", { type: "color", value: state.color, id: "token-colour" }, (v) => { state.color = v; relayout(); })),
      surface.element, h("div", {}, less), status);

    const paragraph = () => ({ maxLines: state.expanded ? 0 : state.maxLines,
      truncation: { mode: state.mode, token: state.token, style: { color: state.color } } });

    function show(result) {
      window.catalog.state = { page: "truncation", layout: result, handle: retained.handle, expanded: state.expanded };
      const token = result.regions.find((r) => r.kind === "truncation");
      status.dataset.state = state.expanded ? "expanded" : result.truncated ? "collapsed" : "whole";
      status.textContent = `${result.lines.length} lines, truncated: ${result.truncated}` +
        (token ? `; the token hides [${token.start}, ${token.end}) — ${token.end - token.start} characters` : "") +
        (result.diff ? `; update reshaped ${result.diff.reshapedParagraphs} paragraphs` : "");
      less.hidden = !state.expanded;
      return surface.draw(retained.handle);
    }

    const relayout = serialized(async () => {
      state.expanded = false;
      const result = await retained.layout({ text: state.text, width: state.width, paragraph: paragraph() });
      await show(result);
    });
    const toggle = serialized(async (expanded) => {
      state.expanded = expanded;
      await show(await retained.update({ paragraph: paragraph() }));
    });

    surface.element.addEventListener("click", async (e) => {
      const point = surface.point(e);
      const hit = await rpc("hitTest", { handle: retained.handle, x: point.x, y: point.y });
      if (hit.region && hit.region.kind === "truncation") toggle(true);
    });
    less.addEventListener("click", () => toggle(false));

    await relayout();
    return () => retained.release();
  },
};
