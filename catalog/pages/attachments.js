// Attachments and links: shortcodes that the attachment provider turns into inline objects,
// an attachment span of the page's own, and the link detectors' regions (url, email,
// mention, hashtag, phone, ticket), each drawn and listed; hover and click ask hitTest.
import { rpc } from "../rpc.js";
import { h, checkbox, textArea, slider, Surface, RetainedLayout, serialized, throttled, table } from "../ui.js";

const TEXT = "Thanks @dana [smile]! The notes are at https://example.com/notes?id=7 and www.layoutd.dev — mail ops@example.com or call +1 415 555 0100. #release ships LAY-42 [thumbsup] BADGE";
const KINDS = ["url", "email", "mention", "hashtag", "phone", "ticket"];

export default {
  id: "attachments",
  title: "Attachments and links",
  summary: "Shortcodes as inline objects, and detected urls, emails, mentions, hashtags and phones with their regions.",
  async show(root) {
    const state = { text: TEXT, width: 420, kinds: new Set(KINDS), attachments: true, badge: true, decorations: true };
    const retained = new RetainedLayout();
    const surface = new Surface("attachments-surface");
    const regions = h("div");
    const under = h("div", { class: "status", id: "hover" });
    const clicked = h("div", { class: "status", id: "clicked" });
    root.append(
      h("h2", { text: this.title }),
      h("p", { class: "explain", text: "With attachments: true the shortcodes plugin turns codes such as [smile] into inline objects: each lays out as one box of its own width, ascent and descent on the baseline (a CoreText run delegate) and comes back as an attachment region; the render plugin draws it as the image the configuration names, or a grey box when it names none. The word BADGE is an attachment span of the page's own. With detectors the links plugin finds urls, emails, mentions, hashtags and phones, and the ticket plugin keys like LAY-42; with decorations the render plugin adds, line by line, the pills and underlines a client should draw (the page draws them over the picture). Hover shows the region under the pointer; click one and the page names it." }),
      h("div", { class: "controls" },
        textArea(state.text, (v) => { state.text = v; relayout(); }, "text"),
        slider("width", { min: 120, max: 700, value: state.width, id: "width" }, (v) => { state.width = v; relayout(); }),
        ...KINDS.map((kind) => checkbox(kind, true, (on) => { on ? state.kinds.add(kind) : state.kinds.delete(kind); relayout(); }, `detect-${kind}`)),
        checkbox("shortcodes", state.attachments, (v) => { state.attachments = v; relayout(); }, "shortcodes"),
        checkbox("badge span", state.badge, (v) => { state.badge = v; relayout(); }, "badge"),
        checkbox("decorations", state.decorations, (v) => { state.decorations = v; relayout(); }, "decorations")),
      surface.element, under, clicked, regions);

    const relayout = serialized(async () => {
      const params = { text: state.text, width: state.width, detectors: [...state.kinds], attachments: state.attachments, decorations: state.decorations };
      const badge = state.text.indexOf("BADGE");
      if (state.badge && badge >= 0) params.spans = [{ start: badge, end: badge + 5, attachment: { width: 44, ascent: 14, descent: 3, value: "badge" } }];
      const result = await retained.layout(params);
      window.catalog.state = { page: "attachments", layout: result, handle: retained.handle };
      await surface.draw(retained.handle);
      surface.clear("hover");
      // The renderer's decorations are the client's to draw (docs/protocol.md): pills, underlines.
      surface.decorations("decorations", result.lines.flatMap((line) => line.decorations || []));
      regions.replaceChildren(h("h3", { text: "Regions" }), table(["kind", "range", "text", "value", "rects"], result.regions.map((r) =>
        [r.kind, `[${r.start}, ${r.end})`, state.text.slice(r.start, r.end), JSON.stringify(r.value ?? null),
          r.rects.map((q) => `${q.x.toFixed(1)},${q.y.toFixed(1)} ${q.width.toFixed(1)}×${q.height.toFixed(1)}`).join("; ")]), "regions"));
    });

    const regionAt = async (e) => {
      const point = surface.point(e);
      const hit = await rpc("hitTest", { handle: retained.handle, x: point.x, y: point.y });
      return hit.region || null;
    };
    const rectsOf = (region) => retained.result.regions.filter((r) => r.start === region.start && r.end === region.end).flatMap((r) => r.rects);
    surface.element.addEventListener("mousemove", throttled(async (e) => {
      const region = await regionAt(e);
      surface.rects("hover", region ? rectsOf(region) : [], "hover");
      under.textContent = region ? `under the pointer: ${region.kind} ${JSON.stringify(region.value ?? "")}` : "under the pointer: text";
    }));
    surface.element.addEventListener("click", async (e) => {
      const region = await regionAt(e);
      if (region) clicked.textContent = `clicked ${region.kind}: ${typeof region.value === "string" ? region.value : JSON.stringify(region.value)}`;
    });

    await relayout();
    return () => retained.release();
  },
};
