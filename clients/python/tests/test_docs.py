"""docs/python.md's examples print what the page shows under them."""
import os
import re
import subprocess
import sys
import unittest

from daemon import ROOT, TestDaemon

PAGE = os.path.join(ROOT, "docs", "python.md")
EXAMPLE = re.compile(r"```python\n(.*?)```\n\n```output\n(.*?)```", re.S)


class DocsTest(unittest.TestCase):
    def test_examples_print_what_the_page_shows(self):
        examples = EXAMPLE.findall(open(PAGE, encoding="utf-8").read())
        self.assertGreaterEqual(len(examples), 5)
        daemon = TestDaemon().start()
        try:
            env = dict(os.environ, LAYOUTD_SOCKET=daemon.socket,
                       PYTHONPATH=os.path.join(ROOT, "clients", "python"))
            for code, expected in examples:
                with self.subTest(code=code.splitlines()[3:4]):
                    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=60)
                    self.assertEqual(done.stderr, "")
                    self.assertEqual(done.stdout, expected)
        finally:
            daemon.remove()


if __name__ == "__main__":
    unittest.main()
