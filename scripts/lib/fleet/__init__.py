"""The pieces of scripts/fleet-test: HAProxy run from deploy/haproxy.cfg (haproxy.py) and the
clients that load it, resending what a dead connection left unanswered (load.py)."""
