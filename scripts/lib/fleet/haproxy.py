"""HAProxy as deploy/haproxy.cfg runs it, in the foreground, its places given by the
environment the file names; and its admin socket's `show stat`, for which nodes are up and
how many connections each has taken."""
import csv
import io
import os
import socket
import subprocess
import time


class HAProxy:
    def __init__(self, config, folder, frontend, nodes):
        self.config, self.frontend = config, frontend
        self.stats_socket = os.path.join(folder, "haproxy-stats.sock")
        self.log_path = os.path.join(folder, "haproxy.log")
        self.env = dict(os.environ, LAYOUTD_FRONTEND=frontend, LAYOUTD_HAPROXY_STATS=self.stats_socket,
                        **{f"LAYOUTD_NODE{i + 1}": path for i, path in enumerate(nodes)})
        self.process = None

    def start(self, timeout=20.0):
        """Starts it (-db: in the foreground) and waits until its admin socket answers."""
        check = subprocess.run(["haproxy", "-c", "-f", self.config], env=self.env, capture_output=True, text=True)
        if check.returncode != 0:
            raise SystemExit(f"haproxy -c -f {self.config}: {check.stdout}{check.stderr}")
        log = open(self.log_path, "wb")
        self.process = subprocess.Popen(["haproxy", "-db", "-f", self.config], env=self.env, stdin=subprocess.DEVNULL,
                                        stdout=log, stderr=subprocess.STDOUT)
        log.close()
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise SystemExit(f"haproxy exited at start: {open(self.log_path).read()[-2000:]}")
            try:
                self.servers()
                return self
            except OSError:
                time.sleep(0.05)
        raise SystemExit("haproxy's admin socket did not answer")

    def command(self, line):
        with socket.socket(socket.AF_UNIX) as s:
            s.settimeout(5)
            s.connect(self.stats_socket)
            s.sendall(line.encode() + b"\n")
            chunks = []
            while True:
                data = s.recv(65536)
                if not data:
                    return b"".join(chunks).decode()
                chunks.append(data)

    def servers(self):
        """Each backend server's row of `show stat`: name → {status, stot (connections taken), …}."""
        text = self.command("show stat").lstrip("# ")
        rows = csv.DictReader(io.StringIO(text))
        return {row["svname"]: row for row in rows if row["pxname"] == "layoutd_nodes"
                and row["svname"] not in ("FRONTEND", "BACKEND")}

    def wait_for(self, name, status, timeout=30.0):
        """Waits until server `name` reports `status` (UP, DOWN); the seconds it took."""
        start = time.monotonic()
        while time.monotonic() - start < timeout:
            if self.servers()[name]["status"].startswith(status):
                return time.monotonic() - start
            time.sleep(0.1)
        raise SystemExit(f"haproxy did not see {name} {status} within {timeout:.0f} s: {self.servers()[name]['status']}")

    def stop(self):
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
