// The page's way to layoutd: one JSON-RPC 2.0 request per POST /rpc, which
// `layoutctl catalog` forwards to the daemon. Every exchange is shown in the wire panel.

let nextId = 1;
const shown = new Map();   // method → its latest exchange, for the wire panel

/** A JSON-RPC error answer: the protocol's error object ({code, message, data?}). */
export class RPCError extends Error {
  constructor(error) {
    super(error.message);
    this.code = error.code;
    this.data = error.data;
  }
}

/** Sends `method` with `params`; resolves to its result, rejects with an RPCError. */
export async function rpc(method, params = {}) {
  const request = { jsonrpc: "2.0", id: nextId++, method, params };
  const started = performance.now();
  let answer, status;
  try {
    const response = await fetch("/rpc", {
      method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(request),
      // A release sent as the page goes away (a reload, a closed tab) still reaches the daemon.
      keepalive: method === "release",
    });
    status = response.status;
    answer = await response.json();
  } catch (failure) {
    answer = { jsonrpc: "2.0", id: request.id, error: { code: -32000, message: `the catalog is not answering: ${failure.message}` } };
    status = 0;
  }
  const ms = performance.now() - started;
  showExchange(method, request, answer, ms);
  banner(status === 502 || status === 0 ? answer.error.message : null);
  if (answer.error) throw new RPCError(answer.error);
  return answer.result;
}

/** Forgets the exchanges shown (a new page starts with an empty panel). */
export function clearExchanges() {
  shown.clear();
  const list = document.getElementById("exchanges");
  if (list) list.replaceChildren();
}

function banner(message) {
  const element = document.getElementById("banner");
  if (!element) return;
  element.hidden = !message;
  element.textContent = message ? `layoutd is not reachable: ${message}` : "";
}

/** Long strings (an SVG picture, base64) are cut for the panel, saying how long they were. */
function abridged(value) {
  return JSON.stringify(value, (key, v) =>
    typeof v === "string" && v.length > 400 ? `${v.slice(0, 160)}… (${v.length} characters)` : v, 1);
}

function showExchange(method, request, answer, ms) {
  const list = document.getElementById("exchanges");
  if (!list) return;
  let entry = shown.get(method);
  if (!entry) {
    entry = document.createElement("section");
    entry.className = "exchange";
    entry.dataset.method = method;
    entry.innerHTML = "<h3><span class=name></span><span class=ms></span></h3><pre class=request></pre><pre class=answer></pre>";
    shown.set(method, entry);
  }
  entry.querySelector(".name").textContent = method;
  entry.querySelector(".ms").textContent = `${ms.toFixed(1)} ms`;
  entry.querySelector(".request").textContent = "→ " + abridged(request);
  const pre = entry.querySelector(".answer");
  pre.textContent = "← " + abridged(answer);
  pre.classList.toggle("error", Boolean(answer.error));
  list.prepend(entry);
}
