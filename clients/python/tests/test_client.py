"""The layoutd package against the real daemon (scripts/client-tests runs it; alone:
`python3 -m unittest discover clients/python/tests` after `swift build`)."""
import asyncio
import json
import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import layoutd  # noqa: E402
from daemon import TestDaemon  # noqa: E402

TEXT = "Grüße aus Köln, Ünal! 👍🏽 ok"


class WithDaemon(unittest.TestCase):
    """One daemon for the class's tests."""

    @classmethod
    def setUpClass(cls):
        cls.daemon = TestDaemon().start()

    @classmethod
    def tearDownClass(cls):
        cls.daemon.remove()


class ClientTest(WithDaemon):
    def setUp(self):
        self.client = layoutd.Client(self.daemon.socket)

    def tearDown(self):
        self.client.close()

    def test_lines_are_python_string_indices(self):
        """Past an emoji with a skin tone (two code points, four UTF-16 units), offsets are
        still indices into the Python string."""
        layout = self.client.layout(TEXT, 100)
        self.assertEqual([(l.start, l.end) for l in layout.lines], [(0, 10), (10, 22), (22, 27)])
        self.assertEqual(TEXT[layout.lines[2].start:layout.lines[2].end], "👍🏽 ok")
        self.assertEqual(layout.lines[-1].end, len(TEXT))
        self.assertTrue(all(a.baseline < b.baseline for a, b in zip(layout.lines, layout.lines[1:])))
        self.assertAlmostEqual(layout.size.height, layout.lines[-1].y + layout.lines[-1].height, places=2)

    def test_measure_agrees_with_layout(self):
        measure = self.client.measure(TEXT, 100)
        layout = self.client.layout(TEXT, 100)
        self.assertEqual(measure.line_count, 3)
        self.assertEqual(measure.size, layout.size)

    def test_regions_and_hit_test(self):
        text = "see https://example.com now"
        layout = self.client.layout(text, 120, detectors=["url"], retain=True)
        [region] = layout.regions
        self.assertEqual((region.kind, text[region.start:region.end], region.value),
                         ("url", "https://example.com", "https://example.com"))
        rect = region.rects[0]
        hit = self.client.hit_test(layout, rect.x + 2, rect.y + rect.height / 2)
        self.assertTrue(region.start <= hit.character < region.end)
        self.assertEqual(hit.region.kind, "url")
        caret = self.client.caret(layout, hit.index)
        self.assertLessEqual(abs(caret.x - (rect.x + 2)), 12)
        rects = self.client.rects(layout, region.start, region.end)
        self.assertEqual(rects, region.rects)

    def test_update_diff_and_release(self):
        layout = self.client.layout("One line", 200, retain=True)
        update = self.client.update(layout, [(8, 8, ", and then a second line of text")])
        self.assertEqual(update.handle, layout.handle)
        self.assertEqual((update.diff.first_line, update.diff.removed, update.diff.added), (0, 1, 2))
        self.assertEqual(update.diff.inserted, [layoutd.Range(8, 40)])
        self.assertEqual(update.lines[-1].end, 40)
        self.assertTrue(self.client.release(layout))

    def test_render(self):
        layout = self.client.layout("Hi", retain=True)
        png = self.client.render(layout, "png", scale=2)
        self.assertEqual(png.data[:8], b"\x89PNG\r\n\x1a\n")
        svg = self.client.render(text="Hi", format="svg")
        self.assertTrue(svg.data.startswith("<svg"))

    def test_errors_carry_code_message_and_field(self):
        with self.assertRaises(layoutd.LayoutdError) as caught:
            self.client.layout("x", 100, font={"size": -1})
        self.assertEqual((caught.exception.code, caught.exception.field), (-32602, "font.size"))
        self.assertIn("font.size", caught.exception.message)
        with self.assertRaises(layoutd.LayoutdError) as caught:
            self.client.hit_test("no-such-handle", 0, 0)
        self.assertEqual(caught.exception.code, -32001)

    def test_pipeline(self):
        with self.client.pipeline() as pipe:
            pending = [pipe.measure("word " * n, 60) for n in range(1, 9)]
        counts = [p.result().line_count for p in reversed(pending)]
        self.assertEqual(counts[::-1], sorted(counts))
        self.assertGreater(counts[0], counts[-1])

    def test_an_evicted_handle_is_laid_out_again(self):
        """A handle the daemon dropped (released here behind the client's back) keeps
        working: the client lays its document out again, edits included."""
        layout = self.client.layout("Hello", 300, retain=True)
        self.client.update(layout, [(5, 5, " there")])
        self.client.call("release", handle=self.client._core.daemon_handle(layout.handle))
        self.assertEqual(self.client.hit_test(layout, 1000, 5).index, len("Hello there"))


class OffsetEncodingTest(unittest.TestCase):
    def test_utf8_offsets_and_edits(self):
        """In UTF-8 bytes, lines and a document laid out again after an edit agree with the
        daemon's own edit."""
        daemon = TestDaemon().start()
        try:
            client = layoutd.Client(daemon.socket, offset_encoding="utf-8")
            layout = client.layout(TEXT, 100, retain=True)
            self.assertEqual([l.end for l in layout.lines], [len(TEXT[:10].encode()), len(TEXT[:22].encode()),
                                                            len(TEXT.encode())])
            client.update(layout, [(4, 6, "ss")])
            edited = client._core.documents[layout.handle].params["text"]
            self.assertEqual(edited, "Grüsse aus Köln, Ünal! 👍🏽 ok")
            daemon.restart()
            self.assertEqual(client.hit_test(layout, 1000, 5).index, len("Grüsse aus ".encode()))
            client.close()
        finally:
            daemon.remove()


class RestartTest(unittest.TestCase):
    def test_handles_survive_a_daemon_restart(self):
        daemon = TestDaemon().start()
        try:
            client = layoutd.Client(daemon.socket)
            text = "Tap the link, or select text"
            layout = client.layout(text, 120, retain=True, spans=[{"start": 8, "end": 12, "link": "https://x.io"}])
            [link] = client.update(layout, [(0, 0, "Please ")]).regions
            x, y = link.rects[0].x + 2, link.rects[0].y + 2
            before = client.hit_test(layout, x, y)
            daemon.restart()
            after = client.hit_test(layout, x, y)
            self.assertEqual(after, before)
            self.assertEqual(after.region.kind, "link")
            self.assertEqual((after.region.start, after.region.end), (15, 19), "the span moved with the edit")
            update = client.update(layout, [(0, 7, "")])
            self.assertEqual(update.lines[-1].end, len(text))
            daemon.restart()
            self.assertTrue(client.release(layout))
            client.close()
        finally:
            daemon.remove()

    def test_new_line_params_are_kept_across_a_restart(self):
        daemon = TestDaemon().start()
        try:
            client = layoutd.Client(daemon.socket)
            text = "A message long enough to wrap at a narrow width.\nAnd a second paragraph."
            layout = client.layout(text, 300, retain=True, paragraph={"align": "end"})
            resized = client.update(layout, width=120, paragraph={"maxLines": 2})
            self.assertEqual(resized.diff.reshaped_paragraphs, 0)
            self.assertTrue(resized.truncated)
            before = client.caret(layout, 3)
            daemon.restart()
            # Laid out again with every change: the width, the line limit, the alignment kept.
            self.assertEqual(client.caret(layout, 3), before)
            fresh = client.layout(text, 120, paragraph={"align": "end", "maxLines": 2})
            self.assertEqual([(l.start, l.end, l.x) for l in client.update(layout, width=120).lines],
                             [(l.start, l.end, l.x) for l in fresh.lines])
            client.close()
        finally:
            daemon.remove()

    def test_no_reconnect_when_asked(self):
        daemon = TestDaemon().start()
        try:
            client = layoutd.Client(daemon.socket, reconnect=False)
            self.assertTrue(client.ping())
            daemon.restart()
            with self.assertRaises(layoutd.ConnectionLost):
                client.ping()
            self.assertTrue(client.ping(), "a new connection, on the next call")
        finally:
            daemon.remove()

    def test_fonts_changed(self):
        daemon = TestDaemon().start()
        try:
            seen = []
            client = layoutd.Client(daemon.socket)
            client.on_fonts_changed(seen.append)
            # The pinned fonts without Inter: another set of fonts, another fingerprint.
            from daemon import ROOT
            fewer = os.path.join(daemon.folder, "fonts.conf")
            with open(os.path.join(ROOT, "config", "fonts.conf")) as pinned, open(fewer, "w") as out:
                out.write(pinned.read().replace("<dir>/usr/share/fonts/truetype/inter-vf</dir>", ""))
            daemon.write_config(fontConfig=fewer)
            with layoutd.Client(daemon.socket) as other:
                fingerprint = other.call("reload")["fontFingerprint"]
            client.poll(timeout=5)
            self.assertEqual(seen, [fingerprint])
            client.close()
        finally:
            daemon.remove()


class AsyncClientTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.daemon = TestDaemon().start()

    @classmethod
    def tearDownClass(cls):
        cls.daemon.remove()

    def test_gathered_requests_and_queries(self):
        async def run():
            async with layoutd.AsyncClient(self.daemon.socket) as client:
                measures = await asyncio.gather(*(client.measure(TEXT, w) for w in (60, 100, 1000)))
                self.assertEqual([m.line_count for m in measures][1:], [3, 1])
                layout = await client.layout(TEXT, 100, retain=True)
                hit = await client.hit_test(layout, 30, 30)
                self.assertEqual((hit.line, TEXT[hit.character]), (1, "n"))
                with self.assertRaises(layoutd.LayoutdError) as caught:
                    await client.layout("x", -1)
                self.assertEqual(caught.exception.field, "width")
        asyncio.run(run())

    def test_cancelling_a_task_cancels_the_request(self):
        async def run():
            async with layoutd.AsyncClient(self.daemon.socket) as client:
                await client.ping()
                connection = client._connection
                sent = []
                send = connection.send
                connection.send = lambda rid, method, params: (sent.append((rid, method, params)), send(rid, method, params))
                task = asyncio.ensure_future(client.layout("lorem ipsum dolor " * 40000, 50))
                await asyncio.sleep(0.01)
                task.cancel()
                with self.assertRaises(asyncio.CancelledError):
                    await task
                self.assertEqual(sent[-1][1:], ("$/cancelRequest", {"id": sent[0][0]}))
                self.assertTrue(await client.ping(), "the connection carries on")
        asyncio.run(run())

    def test_async_restart(self):
        daemon = TestDaemon().start()

        async def run():
            client = layoutd.AsyncClient(daemon.socket)
            layout = await client.layout(TEXT, 100, retain=True)
            daemon.restart()
            hit = await client.hit_test(layout, 30, 30)
            self.assertEqual(hit.character, 13)
            await client.close()
        try:
            asyncio.run(run())
        finally:
            daemon.remove()


class WireTest(WithDaemon):
    """layoutd.wire: the raw connection the repository's tools time and check the wire with."""

    def test_calls_batches_and_exact_bytes(self):
        from layoutd.wire import Connection, DaemonHung, encode, request_message
        with Connection(self.daemon.socket) as conn:
            self.assertEqual(conn.call("ping"), {"pong": True})
            with self.assertRaises(layoutd.LayoutdError) as caught:
                conn.call("layout", {"text": "x", "width": -1})
            self.assertEqual((caught.exception.code, caught.exception.field), (-32602, "width"))
            answers = conn.call_batch([("ping", {}), ("measure", {"text": "a"})])
            self.assertEqual([a["id"] for a in answers], [3, 4])
            line = encode(request_message(99, "ping", {}))
            conn.send_raw(line[:7])
            with self.assertRaises(DaemonHung):
                conn.read_line(timeout=0.2)   # half a message: no answer yet
            conn.send_raw(line[7:])
            self.assertEqual(json.loads(conn.read_line()), {"jsonrpc": "2.0", "id": 99, "result": {"pong": True}})

    def test_the_search_order_without_a_path(self):
        from layoutd.wire import Connection
        saved = os.environ.get("LAYOUTD_SOCKET")
        os.environ["LAYOUTD_SOCKET"] = self.daemon.socket
        try:
            with Connection() as conn:
                self.assertEqual(conn.path, self.daemon.socket)
                self.assertEqual(conn.call("ping"), {"pong": True})
        finally:
            if saved is None:
                del os.environ["LAYOUTD_SOCKET"]
            else:
                os.environ["LAYOUTD_SOCKET"] = saved


class TcpTest(unittest.TestCase):
    """A TCP listener (`listen`, `auth.tokenFile`): the clients connect with the token."""

    TOKEN = "python-test-token-0123456789abcdef"

    @classmethod
    def setUpClass(cls):
        import socket as sockets
        with sockets.socket() as probe:   # a port free now
            probe.bind(("127.0.0.1", 0))
            cls.port = probe.getsockname()[1]
        cls.daemon = TestDaemon(listen=[f"tcp:127.0.0.1:{cls.port}"], auth={"tokenFile": "token"})
        token_path = os.path.join(cls.daemon.folder, "token")
        with open(os.open(token_path, os.O_WRONLY | os.O_CREAT, 0o600), "w") as f:
            f.write(cls.TOKEN + "\n")
        cls.daemon.start()
        cls.address = f"tcp:127.0.0.1:{cls.port}"

    @classmethod
    def tearDownClass(cls):
        cls.daemon.remove()

    def test_client_and_async_client_with_the_token(self):
        with layoutd.Client(self.address, token=self.TOKEN) as client:
            self.assertEqual(client.measure("Hello over TCP", 300).line_count, 1)

        async def run():
            client = layoutd.AsyncClient(self.address, token=self.TOKEN)
            try:
                return await client.ping()
            finally:
                await client.close()
        self.assertTrue(asyncio.run(run()))

    def test_without_the_token_the_daemon_refuses(self):
        with layoutd.Client(self.address) as client, self.assertRaises(layoutd.LayoutdError) as caught:
            client.ping()
        self.assertEqual(caught.exception.code, -32000)
        self.assertIn("params.auth.token", caught.exception.message)

    def test_the_wire_over_tcp(self):
        from layoutd.wire import Connection
        with Connection(self.address) as conn:
            conn.call("initialize", {"auth": {"token": self.TOKEN}})
            self.assertEqual(conn.call("ping"), {"pong": True})


class SearchOrderTest(unittest.TestCase):
    def test_order(self):
        from layoutd._socket import candidates
        self.assertEqual(candidates({"LAYOUTD_SOCKET": "/x.sock", "XDG_RUNTIME_DIR": "/run/user/7"}), ["/x.sock"])
        self.assertEqual(candidates({"XDG_RUNTIME_DIR": "/run/user/7"}),
                         ["/run/user/7/layoutd/layoutd.sock", "/run/layoutd/layoutd.sock",
                          f"/tmp/layoutd-{os.getuid()}/layoutd.sock"])

    def test_none_answers(self):
        saved = os.environ.get("LAYOUTD_SOCKET")
        os.environ["LAYOUTD_SOCKET"] = "/nonexistent/layoutd.sock"
        try:
            with self.assertRaises(layoutd.NoDaemon) as caught:
                layoutd.Client().ping()
            self.assertIn("/nonexistent/layoutd.sock", str(caught.exception))
        finally:
            if saved is None:
                del os.environ["LAYOUTD_SOCKET"]
            else:
                os.environ["LAYOUTD_SOCKET"] = saved


if __name__ == "__main__":
    unittest.main()
