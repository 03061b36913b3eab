"""The limits every part of the soak shares, and its progress messages."""
import json
import sys

READ_TIMEOUT = 60.0        # no answer for this long (requestSeconds is 30 s): the daemon is hung
CONNECT_TIMEOUT = 10.0
START_TIMEOUT = 60.0       # exec to a socket that accepts
SAMPLE_SECONDS = 10.0
WARMUP_SECONDS = 60.0
FD_SETTLE_SECONDS = 15.0   # how long the daemon gets to close connections before fds are judged
MAX_HELD_HANDLES = 3       # per client, so the retained store never nears its bounds
FAILURE_SAMPLES = 25       # failures described in full per client


class Interrupted(Exception):
    """SIGTERM or SIGHUP arrived (Ctrl-C raises KeyboardInterrupt)."""


def step(message):
    print(f"… {message}", file=sys.stderr, flush=True)


def short(value):
    """A JSON value in at most 160 characters."""
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= 160 else text[:157] + "…"
