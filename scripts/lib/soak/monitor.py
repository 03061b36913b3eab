"""The daemon's figures from /proc: resident memory, CPU time, open file descriptors."""
import os
import time


def read_rss_mb(pid):
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) / 1024.0
    except OSError:
        pass
    return None


def cpu_seconds(pid):
    """User + system CPU time of a process so far."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, IndexError, ValueError):
        return None


def count_fds(pid):
    try:
        return len(os.listdir(f"/proc/{pid}/fd"))
    except OSError:
        return None


def wait_for_fds(pid, target, seconds):
    """The fd count once it is `target` (or, with target None, once it stops changing)."""
    deadline = time.monotonic() + seconds
    last, stable_since = count_fds(pid), time.monotonic()
    while time.monotonic() < deadline:
        time.sleep(0.2)
        now = count_fds(pid)
        if target is not None and now == target:
            return now
        if now != last:
            last, stable_since = now, time.monotonic()
        elif target is None and time.monotonic() - stable_since >= 1.0:
            return now
    return count_fds(pid)
