// The catalog's shell: the list of pages, the route (`#/name`), and the server line.
import { rpc, clearExchanges } from "./rpc.js";
import { h } from "./ui.js";
import lines from "./pages/lines.js";
import international from "./pages/international.js";
import interaction from "./pages/interaction.js";
import attachments from "./pages/attachments.js";
import truncation from "./pages/truncation.js";
import paragraph from "./pages/paragraph.js";
import streaming from "./pages/streaming.js";
import performancePage from "./pages/performance.js";

// Each page: {id, title, summary, show(root) → optional cleanup function}.
const pages = [lines, international, interaction, attachments, truncation, paragraph, streaming, performancePage];
let cleanup = null;
// For the browser test and the console: the RPC function and what the current page laid out.
window.catalog = { rpc, state: null };

function home(root) {
  root.append(
    h("h2", { text: "What layoutd computes, live" }),
    h("p", { class: "explain", text: "Each page lays text out with the daemon this catalog is connected to, draws what it answered, and shows the JSON-RPC exchange behind the drawing in the panel on the right. The pages use nothing but the protocol (docs/protocol.md): the geometry, the hit-testing and the pictures are the daemon's." }),
    h("div", { class: "grid home" }, ...pages.map((page) =>
      h("a", { class: "card", href: `#/${page.id}` }, h("h4", { text: page.title }), h("span", { text: page.summary })))));
}

async function route() {
  if (cleanup) { try { await cleanup(); } catch { /* the daemon may be gone */ } cleanup = null; }
  const id = location.hash.replace(/^#\/?/, "");
  const page = pages.find((p) => p.id === id);
  const root = document.getElementById("page");
  root.replaceChildren();
  clearExchanges();
  window.catalog.state = null;
  for (const link of document.querySelectorAll("nav a")) link.classList.toggle("current", link.dataset.page === (page ? page.id : ""));
  document.title = page ? `${page.title} — layoutd catalog` : "layoutd catalog";
  if (!page) { home(root); return; }
  root.dataset.page = page.id;
  cleanup = (await page.show(root)) || null;
}

async function start() {
  const nav = document.getElementById("pages");
  nav.append(h("a", { href: "#/", "data-page": "", text: "Overview" }),
    ...pages.map((page) => h("a", { href: `#/${page.id}`, "data-page": page.id, text: page.title })));
  window.addEventListener("hashchange", route);
  // Leaving the catalog: the page's retained layouts are released (docs/catalog.md).
  window.addEventListener("pagehide", () => { if (cleanup) cleanup(); cleanup = null; });
  try {
    const server = await rpc("initialize", {});
    document.getElementById("server").textContent =
      `${server.server.name} ${server.server.version}, protocol ${server.protocolVersion}, offsets ${server.offsetEncoding}; plugins: ${server.capabilities.plugins.map((p) => p.name).join(", ")}`;
  } catch (error) {
    document.getElementById("server").textContent = `no answer: ${error.message}`;
  }
  await route();
}

start();
