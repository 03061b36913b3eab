#!/usr/bin/python3
"""The catalog in a real browser: starts layoutd on a temporary socket (config/layoutd.json,
the pinned fonts), then `layoutctl catalog --port 0` on it, and drives headless Chromium
(Debian's chromium and chromium-driver, through python3-selenium) through every page:
each loads and draws, a click on the link names it, a drag selects the text under it, a
double click selects a word, the truncation token expands and collapses the message. A
screenshot of each page goes to the output folder. The bridge's refusals (a foreign Host or
Origin, a path out of the folder, a body that is not JSON) are checked over plain HTTP first.

usage: Tests/Catalog/catalog_test.py [--binary LAYOUTD] [--layoutctl LAYOUTCTL] [--output DIR]
  defaults: .build/debug/layoutd, .build/debug/layoutctl, .build/catalog-screenshots

Exits 0 when every check passed, 1 otherwise.
"""
import http.client, json, os, re, socket, subprocess, sys, time

root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(root, "scripts", "lib"))
from layoutd_client import Daemon  # noqa: E402

from selenium import webdriver  # noqa: E402
from selenium.webdriver.chrome.service import Service  # noqa: E402
from selenium.webdriver.common.action_chains import ActionChains  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.support.ui import WebDriverWait  # noqa: E402

PAGES = ["overview", "lines", "international", "interaction", "attachments", "truncation", "paragraph", "streaming", "performance"]
MARGIN = 8   # catalog/ui.js: the points render leaves around the text


def argument(args, name, default):
    if name in args:
        i = args.index(name)
        return os.path.abspath(args[i + 1])
    return default


class Catalog:
    """`layoutctl catalog --port 0` on the daemon's socket; `url` is what it printed."""

    def __init__(self, layoutctl, sock):
        self.process = subprocess.Popen([layoutctl, "catalog", "--port", "0", "--socket", sock],
                                        stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        line = self.process.stdout.readline().decode()
        found = re.search(r"http://127\.0\.0\.1:(\d+)/", line)
        if not found:
            self.process.kill()
            raise SystemExit(f"catalog-test: layoutctl catalog printed no URL: {line!r} {self.process.stderr.read()!r}")
        self.url, self.port = found.group(0), int(found.group(1))

    def stop(self):
        self.process.terminate()
        self.process.wait(timeout=10)


def http_status(port, method, path, body=None, headers=None):
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    connection.request(method, path, body=body, headers=headers or {})
    response = connection.getresponse()
    data = response.read()
    connection.close()
    return response.status, data


def raw_status(port, data):
    """The status code of the answer to the raw bytes `data`."""
    with socket.create_connection(("127.0.0.1", port), timeout=10) as connection:
        connection.sendall(data)
        answer = b""
        while not answer.endswith(b"}") and len(answer) < 1 << 16:
            chunk = connection.recv(65536)
            if not chunk:
                break
            answer += chunk
    return int(answer.split(b" ", 2)[1])


def check_http(catalog):
    """The bridge over plain HTTP: what it serves, forwards and refuses."""
    status, body = http_status(catalog.port, "GET", "/")
    assert status == 200 and b"layoutd catalog" in body, (status, body[:200])
    rpc = json.dumps({"jsonrpc": "2.0", "id": 5, "method": "layout", "params": {"text": "x", "width": -1}})
    status, body = http_status(catalog.port, "POST", "/rpc", rpc, {"Content-Type": "application/json"})
    answer = json.loads(body)
    assert status == 200 and answer["id"] == 5 and answer["error"]["code"] == -32602 \
        and answer["error"]["data"]["field"] == "width", answer
    status, _ = http_status(catalog.port, "GET", "/", headers={"Host": "rebound.example.com"})
    assert status == 403, status
    status, _ = http_status(catalog.port, "POST", "/rpc", rpc, {"Content-Type": "application/json", "Origin": "http://evil.example"})
    assert status == 403, status
    status, _ = http_status(catalog.port, "POST", "/rpc", rpc, {"Content-Type": "text/plain"})
    assert status == 415, status
    for path in ["/../README.md", "/%2e%2e/README.md", "/pages/../../README.md", "/.hidden.js"]:
        status, _ = http_status(catalog.port, "GET", path)
        assert status == 404, (path, status)
    # RFC 9112's edges: no Host, a chunked body, a body over maxMessageBytes, a huge header,
    # a method not served.
    host = f"Host: 127.0.0.1:{catalog.port}\r\n".encode()
    for data, expected in [(b"GET / HTTP/1.1\r\n\r\n", 400),
                           (b"POST /rpc HTTP/1.1\r\n" + host + b"Transfer-Encoding: chunked\r\n\r\n0\r\n\r\n", 411),
                           (b"POST /rpc HTTP/1.1\r\n" + host + b"Content-Length: 16777217\r\n\r\n", 413),
                           (b"GET / HTTP/1.1\r\n" + host + b"X: " + b"a" * 20000 + b"\r\n\r\n", 431),
                           (b"PUT / HTTP/1.1\r\n" + host + b"\r\n", 501),
                           (b"GET / HTTP/2.0\r\n" + host + b"\r\n", 505)]:
        status = raw_status(catalog.port, data)
        assert status == expected, (data[:40], status, expected)


def browser():
    options = webdriver.ChromeOptions()
    options.binary_location = "/usr/bin/chromium"
    # As root in a container Chromium's sandbox cannot start; the test loads only our pages.
    for flag in ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--window-size=1500,1100"]:
        options.add_argument(flag)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    return webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)


def open_page(driver, catalog, page, ready):
    """Loads `page` and waits until `ready` (a JavaScript expression) holds."""
    driver.get(f"{catalog.url}#/{'' if page == 'overview' else page}")
    driver.refresh()   # a hash change alone would not load the page afresh
    WebDriverWait(driver, 15).until(lambda d: d.execute_script(f"return Boolean({ready})"))


def page_point(driver, surface_id, x, y):
    """Viewport coordinates of the layout point (x, y) of the surface `surface_id`."""
    box = driver.execute_script(
        f"const e = document.querySelector('#{surface_id} .picture'); e.scrollIntoView({{block: 'center'}});"
        "const b = e.getBoundingClientRect(); return [b.left, b.top];")
    return round(box[0] + MARGIN + x), round(box[1] + MARGIN + y)


def pointer(driver, steps):
    """Runs pointer actions: ("move", x, y), ("down",), ("up",), in viewport coordinates."""
    actions = ActionChains(driver)
    for step in steps:
        if step[0] == "move":
            actions.w3c_actions.pointer_action.move_to_location(step[1], step[2])
        elif step[0] == "down":
            actions.w3c_actions.pointer_action.pointer_down()
        else:
            actions.w3c_actions.pointer_action.pointer_up()
    actions.perform()


def call(driver, method, params):
    """A request through the page's own rpc (so it shows on the page's wire panel too)."""
    return driver.execute_async_script(
        "const done = arguments[arguments.length - 1];"
        "window.catalog.rpc(arguments[0], arguments[1]).then(done, (e) => done({error: e.message}));", method, params)


def text_of(driver, selector):
    return driver.find_element(By.CSS_SELECTOR, selector).text


def drawn(page):
    """The page's state is set and its surface holds the daemon's picture."""
    return f"window.catalog.state && window.catalog.state.page === '{page}' && document.querySelector('main .surface .picture svg')"


def check_interaction(driver, catalog):
    open_page(driver, catalog, "interaction", drawn("interaction"))
    state = driver.execute_script("return window.catalog.state")
    link = next(r for r in state["layout"]["regions"] if r["kind"] == "link" and r.get("enabled", True))
    rect = link["rects"][0]
    x, y = page_point(driver, "interaction-surface", rect["x"] + rect["width"] / 2, rect["y"] + rect["height"] / 2)
    pointer(driver, [("move", x - 3, y), ("move", x, y)])   # hover: hitTest names the region
    WebDriverWait(driver, 10).until(lambda d: "link \"https://example.com/docs\"" in text_of(d, "#hover"))
    pointer(driver, [("down",), ("up",)])
    WebDriverWait(driver, 10).until(lambda d: "https://example.com/docs" in text_of(d, "#clicked"))
    # Drag from inside the first half of "select" to inside the last half of "text".
    start = state["text"].index("select some text")
    end = start + len("select some text")
    first, last = call(driver, "caret", {"handle": state["handle"], "index": start}), \
        call(driver, "caret", {"handle": state["handle"], "index": end})
    x0, y0 = page_point(driver, "interaction-surface", first["x"] + 1.5, first["y"] + first["height"] / 2)
    x1, y1 = page_point(driver, "interaction-surface", last["x"] - 1.5, last["y"] + last["height"] / 2)
    pointer(driver, [("move", x0, y0), ("down",), ("move", (x0 + x1) // 2, (y0 + y1) // 2), ("move", x1, y1), ("up",)])
    WebDriverWait(driver, 10).until(lambda d: text_of(d, "#selected-text") == "select some text")
    # A double click inside "mouse" selects the word (the daemon's `word`).
    inside = call(driver, "caret", {"handle": state["handle"], "index": state["text"].index("mouse") + 2})
    x, y = page_point(driver, "interaction-surface", inside["x"], inside["y"] + inside["height"] / 2)
    pointer(driver, [("move", x, y), ("down",), ("up",), ("down",), ("up",)])
    WebDriverWait(driver, 10).until(lambda d: text_of(d, "#selected-text") == "mouse")


def check_truncation(driver, catalog):
    open_page(driver, catalog, "truncation", drawn("truncation"))
    layout = driver.execute_script("return window.catalog.state.layout")
    assert layout["truncated"], layout
    token = next(r for r in layout["regions"] if r["kind"] == "truncation")
    rect = token["rects"][0]
    x, y = page_point(driver, "truncation-surface", rect["x"] + rect["width"] / 2, rect["y"] + rect["height"] / 2)
    pointer(driver, [("move", x, y), ("down",), ("up",)])
    WebDriverWait(driver, 10).until(lambda d: d.find_element(By.ID, "truncation-state").get_attribute("data-state") == "expanded")
    expanded = driver.execute_script("return window.catalog.state.layout")
    assert not expanded["truncated"] and expanded["diff"]["reshapedParagraphs"] == 0, expanded.get("diff")
    driver.find_element(By.ID, "less").click()
    WebDriverWait(driver, 10).until(lambda d: d.find_element(By.ID, "truncation-state").get_attribute("data-state") == "collapsed")


def check_performance(driver, catalog):
    open_page(driver, catalog, "performance", READY["performance"])
    driver.execute_script("const c = document.getElementById('count'); c.value = 50; c.dispatchEvent(new Event('input'));")
    driver.find_element(By.ID, "bench").click()
    WebDriverWait(driver, 30).until(lambda d: d.find_element(By.ID, "bench-result").get_attribute("data-done") == "true")
    assert text_of(driver, "#bench-result").startswith("50 layout requests"), text_of(driver, "#bench-result")


READY = {  # pages whose readiness is not `drawn`
    "overview": "document.querySelectorAll('.home a.card').length === 8",
    "performance": "document.querySelector('#stats-requests') && document.querySelector('#stats-requests').textContent !== ''",
    "streaming": drawn("streaming"),
}
CHECKS = {"interaction": check_interaction, "truncation": check_truncation, "performance": check_performance}


def check_page(driver, catalog, page, output):
    if page in CHECKS:
        CHECKS[page](driver, catalog)
    else:
        open_page(driver, catalog, page, READY.get(page, drawn(page)))
    errors = driver.execute_script("return document.getElementById('banner').hidden ? '' : document.getElementById('banner').textContent")
    assert not errors, errors
    time.sleep(0.3)   # let the last drawing settle for the picture
    driver.save_screenshot(os.path.join(output, f"{page}.png"))


def main():
    args = sys.argv[1:]
    binary = argument(args, "--binary", os.path.join(root, ".build", "debug", "layoutd"))
    layoutctl = argument(args, "--layoutctl", os.path.join(root, ".build", "debug", "layoutctl"))
    output = argument(args, "--output", os.path.join(root, ".build", "catalog-screenshots"))
    os.makedirs(output, exist_ok=True)
    failures = []
    started = time.monotonic()
    with Daemon(binary, os.path.join(root, "config", "layoutd.json"), log_path=None) as daemon:
        daemon.start().wait_until_listening()
        catalog = Catalog(layoutctl, daemon.sock)
        driver = None
        try:
            checks = [("http", lambda: check_http(catalog))]
            driver = browser()
            driver.set_script_timeout(15)
            checks += [(page, lambda page=page: check_page(driver, catalog, page, output)) for page in PAGES]
            for name, check in checks:
                t = time.monotonic()
                try:
                    check()
                    print(f"catalog-test: {name}: ok ({time.monotonic() - t:.1f} s)")
                except Exception as error:   # every page is tried; each failure is reported
                    failures.append(name)
                    print(f"catalog-test: {name}: FAILED: {type(error).__name__}: {error}".rstrip())
                    for entry in driver.get_log("browser") if driver else []:
                        print(f"  browser console: {entry['level']}: {entry['message']}")
        finally:
            if driver:
                driver.quit()
            catalog.stop()
    print(f"catalog-test: {len(PAGES) + 1 - len(failures)} of {len(PAGES) + 1} passed in {time.monotonic() - started:.1f} s; screenshots in {output}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
