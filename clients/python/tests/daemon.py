"""A layoutd for the package's tests: $LAYOUTD_BINARY (default the repository's debug build)
on a socket in a temporary folder, with the pinned fonts; restartable on the same socket."""
import json
import os
import shutil
import socket
import subprocess
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
BINARY = os.environ.get("LAYOUTD_BINARY") or os.path.join(ROOT, ".build", "debug", "layoutd")


class TestDaemon:
    def __init__(self, **config):
        self.folder = tempfile.mkdtemp(prefix="layoutd-py-")
        self.socket = os.path.join(self.folder, "layoutd.sock")
        self.config_path = os.path.join(self.folder, "layoutd.json")
        self.write_config(**config)
        self.process = None

    def write_config(self, **config):
        config = {"fontConfig": os.path.join(ROOT, "config", "fonts.conf"), **config}
        with open(self.config_path, "w") as f:
            json.dump(config, f)

    def start(self):
        self.process = subprocess.Popen([BINARY, "--socket", self.socket, "--config", self.config_path,
                                         "--log-level", "error"], stdin=subprocess.DEVNULL,
                                        stdout=subprocess.DEVNULL)
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"layoutd exited at start ({self.process.returncode})")
            try:
                with socket.socket(socket.AF_UNIX) as probe:
                    probe.connect(self.socket)
                return self
            except OSError:
                time.sleep(0.05)
        raise RuntimeError("layoutd did not listen")

    def stop(self):
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            self.process.wait(20)
        self.process = None

    def restart(self):
        self.stop()
        return self.start()

    def remove(self):
        self.stop()
        shutil.rmtree(self.folder, ignore_errors=True)
