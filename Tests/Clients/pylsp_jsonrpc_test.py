"""python-lsp-jsonrpc (Debian's python3-pylsp-jsonrpc), used as it is, against layoutd.

Run by scripts/client-tests with Debian's own /usr/bin/python3:
    /usr/bin/python3 Tests/Clients/pylsp_jsonrpc_test.py SOCKET
Its JsonRpcStreamWriter writes `Content-Length: N\\r\\nContent-Type: ...; charset=utf8\\r\\n\\r\\n`
headers and its JsonRpcStreamReader reads them: layoutd answers in that framing
(docs/protocol.md, "Framing").
"""
import socket
import sys
import threading
import unittest

from pylsp_jsonrpc.endpoint import Endpoint
from pylsp_jsonrpc.exceptions import JsonRpcException
from pylsp_jsonrpc.streams import JsonRpcStreamReader, JsonRpcStreamWriter

SOCKET = sys.argv.pop(1) if len(sys.argv) > 1 else None
TEXT = "Grüße aus Köln, Ünal!"
TIMEOUT = 30


class PylspJsonrpcTest(unittest.TestCase):
    def setUp(self):
        self.sock = socket.socket(socket.AF_UNIX)
        self.sock.connect(SOCKET)
        self.reader = JsonRpcStreamReader(self.sock.makefile("rb"))
        self.writer = JsonRpcStreamWriter(self.sock.makefile("wb"))
        self.endpoint = Endpoint({}, self.writer.write)
        self.listener = threading.Thread(target=self.reader.listen, args=(self.endpoint.consume,), daemon=True)
        self.listener.start()

    def tearDown(self):
        self.sock.shutdown(socket.SHUT_RDWR)
        self.listener.join(TIMEOUT)
        self.endpoint.shutdown()
        self.sock.close()

    def request(self, method, params):
        return self.endpoint.request(method, params).result(TIMEOUT)

    def test_layout_then_hit_test(self):
        """A paragraph laid out at 100 points wraps in two lines; a point on the second line
        hits the "n" of "Köln" (UTF-16 offsets, the default)."""
        layout = self.request("layout", {"text": TEXT, "width": 100, "retain": True})
        self.assertEqual([(l["start"], l["end"]) for l in layout["lines"]], [(0, 10), (10, 21)])
        self.assertGreater(layout["lines"][1]["y"], layout["lines"][0]["y"])
        self.assertEqual(layout["size"]["height"], layout["lines"][1]["y"] + layout["lines"][1]["height"])
        hit = self.request("hitTest", {"handle": layout["handle"], "x": 30, "y": 30})
        self.assertEqual((hit["index"], hit["character"], hit["line"]), (14, 13, 1))
        self.assertEqual(TEXT[hit["character"]], "n")

    def test_pipelined_requests_match_by_id(self):
        """Futures sent before any answer is read each get their own answer."""
        futures = [self.endpoint.request("measure", {"text": TEXT, "width": w}) for w in (40, 100, 1000)]
        counts = [f.result(TIMEOUT)["lineCount"] for f in futures]
        self.assertEqual(counts[1:], [2, 1])
        self.assertGreater(counts[0], 2)

    def test_error_is_a_json_rpc_exception(self):
        with self.assertRaises(JsonRpcException) as caught:
            self.request("layout", {"text": "x", "width": -1})
        self.assertEqual(caught.exception.code, -32602)
        self.assertEqual(caught.exception.data, {"field": "width"})


if __name__ == "__main__":
    unittest.main()
