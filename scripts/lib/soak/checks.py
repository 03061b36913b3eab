"""What an answer is checked against: the quiet daemon's answer to the same template."""
from .common import short

def without(result, *members):
    return {k: v for k, v in result.items() if k not in members} if isinstance(result, dict) else result


def first_difference(got, want, path="result"):
    """Where two JSON values first differ, in words."""
    if type(got) is not type(want) and not (isinstance(got, (int, float)) and isinstance(want, (int, float))):
        return f"{path}: got {short(got)}, expected {short(want)}"
    if isinstance(want, dict):
        for k in sorted(set(got) | set(want)):
            if k not in got:
                return f"{path}.{k}: missing (expected {short(want[k])})"
            if k not in want:
                return f"{path}.{k}: unexpected member {short(got[k])}"
            if got[k] != want[k]:
                return first_difference(got[k], want[k], f"{path}.{k}")
        return None
    if isinstance(want, list):
        for i, (g, w) in enumerate(zip(got, want)):
            if g != w:
                return first_difference(g, w, f"{path}[{i}]")
        if len(got) != len(want):
            return f"{path}: {len(got)} items, expected {len(want)}"
        return None
    return None if got == want else f"{path}: got {short(got)}, expected {short(want)}"


def check_result(pending, result):
    """None when the result is the expected one, else what differs."""
    check, want = pending.check, pending.expect
    if check == "exact":
        return first_difference(result, want)
    if check == "layout":
        return first_difference(without(result, "handle"), want)
    if check == "update":
        full, diff, changed = want
        got = without(result, "handle", "diff")
        if not isinstance(result, dict) or "diff" not in result:
            return "result has no diff"
        got_diff = without(result["diff"], "reusedParagraphs")
        if changed:
            first, added = got_diff.get("firstLine", 0), got_diff.get("added", 0)
            full = dict(full, lines=full["lines"][first:first + added])
        return first_difference(got, full) or first_difference(got_diff, diff, "result.diff")
    if check == "stats":
        return None if isinstance(result, dict) and "requests" in result else f"stats: {short(result)}"
    return f"unknown check {check}"
