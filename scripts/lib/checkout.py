"""Where a script finds things outside its own checkout."""
import os


def shared_folder(root):
    """The project's shared/ folder (the corpus, the reference tool): $LAYOUTD_SHARED, else the
    first shared/ beside the checkout or one level further up (a worktree in a folder of its
    own, e.g. wt/NAME beside the main checkout)."""
    named = os.environ.get("LAYOUTD_SHARED")
    if named:
        return named
    candidates = [os.path.join(os.path.dirname(root), "shared"),
                  os.path.join(os.path.dirname(os.path.dirname(root)), "shared")]
    return next((c for c in candidates if os.path.isdir(c)), candidates[0])
