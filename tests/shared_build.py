"""One lock per build folder shared between test processes.

`make test` runs pytest-xdist workers; several of them may configure and build the
same CMake folder (build/host, build/host-asan, build/fuzz). CMake and make are not
safe to run twice at once in one folder, so every test that builds a shared folder
holds its lock (a file beside the folder, `<folder>.lock`) while it does.
"""
from contextlib import contextmanager
from pathlib import Path

from filelock import FileLock


@contextmanager
def build_lock(build_dir: Path):
    """Hold the inter-process lock of build_dir (blocks until the other holder is done)."""
    build_dir = Path(build_dir)
    build_dir.parent.mkdir(parents=True, exist_ok=True)
    with FileLock(str(build_dir) + ".lock"):
        yield
