// Performance: the daemon's own counters (stats) polled every second, and a small benchmark
// that sends many layout or measure requests through the catalog and times them.
import { rpc } from "../rpc.js";
import { h, slider, choice } from "../ui.js";

const TEXTS = [
  "Hello, world! This is layoutd, laying out text over a Unix socket.",
  "שלום עולם — مرحبا بالعالم — 你好，世界 — नमस्ते — 👍🏽",
  "A long message that will not fit in two lines at this width, streamed from a model.",
  "Thanks @dana! Notes at https://example.com/notes and #release ships today.",
  "สวัสดีครับ ภาษาไทยไม่มีช่องว่างระหว่างคำ แต่ตัดบรรทัดได้ด้วยพจนานุกรม",
];

const percent = (rate) => rate === null || rate === undefined ? "–" : `${(rate * 100).toFixed(1)}%`;

function card(title, big, detail, id) {
  return h("div", { class: "card" }, h("h4", { text: title }),
    h("div", { class: "big", id, text: big }), detail ? h("div", { class: "hint", text: detail }) : null);
}

/** The stats cards, from the daemon's `stats`. */
async function refresh(cards) {
  const s = await rpc("stats");
  const latency = s.requests.latencyMs || {};
  const caches = s.caches;
  cards.replaceChildren(
    card("requests", String(s.requests.total), `${s.requests.errors} errors; up ${Math.round(s.server.uptimeSeconds)} s`, "stats-requests"),
    card("latency in the daemon (ms)", `p50 ${latency.p50 ?? "–"}`, `p90 ${latency.p90 ?? "–"}, p99 ${latency.p99 ?? "–"}, max ${latency.max ?? "–"}`),
    card("shaped words", String(caches.shapedWords.count), `hit rate ${percent(caches.shapedWords.hitRate)}`),
    card("fallback lists", String(caches.fallbackLists.count), `hit rate ${percent(caches.fallbackLists.hitRate)}`),
    card("font faces", String(caches.fontFaces.count), `hit rate ${percent(caches.fontFaces.hitRate)}; ${s.fonts.faces} faces known`),
    card("retained layouts", String(caches.retainedLayouts.count), `${(caches.retainedLayouts.bytes / 1024).toFixed(0)} KiB, ${caches.retainedLayouts.evicted} evicted`),
    card("memory", `${(s.memory.residentBytes / 1048576).toFixed(1)} MiB`, "resident"),
    card("connections", String(s.connections.open), `limit ${s.connections.limit}`));
}

/** Sends `state.count` requests, `state.concurrency` at a time, and reports their round trips. */
async function bench(state, { run, bar, result }) {
  run.disabled = true;
  const total = state.count, times = [];
  let next = 0, done = 0;
  const started = performance.now();
  async function worker() {
    while (next < total) {
      const i = next++;
      const params = { text: TEXTS[i % TEXTS.length], width: 120 + (i * 37) % 400 };
      const t = performance.now();
      await rpc(state.method, params);
      times.push(performance.now() - t);
      done += 1;
      if (done % 10 === 0 || done === total) bar.style.width = `${(100 * done / total).toFixed(1)}%`;
    }
  }
  try {
    await Promise.all(Array.from({ length: state.concurrency }, worker));
    const seconds = (performance.now() - started) / 1000;
    times.sort((a, b) => a - b);
    const at = (q) => times[Math.min(times.length - 1, Math.floor(q * times.length))].toFixed(2);
    result.textContent = `${total} ${state.method} requests in ${seconds.toFixed(2)} s: ${(total / seconds).toFixed(0)} a second; round trip from the page p50 ${at(0.5)} ms, p99 ${at(0.99)} ms`;
    result.dataset.done = "true";
  } finally {
    run.disabled = false;
  }
}

export default {
  id: "performance",
  title: "Performance",
  summary: "The daemon's stats, live, and a small benchmark with a progress bar.",
  async show(root) {
    const state = { count: 400, concurrency: 4, method: "layout" };
    const cards = h("div", { class: "grid", id: "stats" });
    const bar = h("div", { id: "progress-bar" });
    const result = h("div", { class: "status", id: "bench-result" });
    const run = h("button", { id: "bench", text: "run the benchmark" });
    root.append(
      h("h2", { text: this.title }),
      h("p", { class: "explain", text: "stats is the daemon's own view: requests and errors, its latency percentiles (measured inside the daemon, over the last 1024 requests), the caches and their hit rates, retained layouts and memory. The benchmark sends the requests below from this page, a few at a time, each through the catalog's HTTP bridge — so its timings include the browser and the bridge, and are far slower than the daemon's own latency beside them." }),
      cards,
      h("h3", { text: "Benchmark" }),
      h("div", { class: "controls" },
        slider("requests", { min: 50, max: 2000, step: 50, value: state.count, id: "count" }, (v) => { state.count = v; }),
        slider("at once", { min: 1, max: 8, value: state.concurrency, id: "concurrency" }, (v) => { state.concurrency = v; }),
        choice("method", ["layout", "measure"], state.method, (v) => { state.method = v; }, "method"),
        run),
      h("div", { class: "bar" }, bar), result);

    run.addEventListener("click", () => { result.dataset.done = ""; bar.style.width = "0"; bench(state, { run, bar, result }); });

    await refresh(cards);
    const timer = setInterval(() => refresh(cards).catch(() => {}), 1000);
    return () => clearInterval(timer);
  },
};
