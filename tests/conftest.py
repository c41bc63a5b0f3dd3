"""Shared pytest fixtures and paths."""
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))
if str(ROOT / "tests") not in sys.path:  # tests/shared_build.py
    sys.path.insert(0, str(ROOT / "tests"))


def qemu_available() -> bool:
    import shutil
    return shutil.which("qemu-system-arm") is not None and shutil.which("arm-none-eabi-gcc") is not None


@pytest.fixture(scope="session", autouse=False)
def need_qemu():
    """The simulator tests' toolchain (any test folder): missing it fails, never skips."""
    if not qemu_available():
        pytest.fail("qemu-system-arm and arm-none-eabi-gcc are required for the sim tests")


@pytest.fixture(scope="session", autouse=True)
def host_library():
    """build/host/ports/linux/libmote.so, rebuilt before any test when a C source of it
    (runtime/, kernels/, backends/, ports/linux/, cmake/, CMakeLists.txt) is newer than
    the last build (tests/shared_build.py: one worker builds under the folder's lock)."""
    from shared_build import ensure_host_library
    return ensure_host_library()
