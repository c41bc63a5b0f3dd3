"""The documented sanitized host build (CMakeLists.txt: `cmake -S . -B build/host-asan
-DMOTE_SANITIZE=ON`) configures and builds with GCC: no build type, so the kernels keep
-O3 next to -fsanitize, where -Werror=maybe-uninitialized once fired in kernels/requant.h.
The asan_build fixture is exactly that build; every sanitized test runs on it."""
import re

import _harness as H


def test_documented_sanitized_build(asan_build):
    cache = (asan_build / "CMakeCache.txt").read_text()
    assert "MOTE_SANITIZE:BOOL=ON" in cache
    assert re.search(r"^CMAKE_BUILD_TYPE:STRING=$", cache, re.M), "not the documented (no build type) build"
    flags = (asan_build / "kernels" / "CMakeFiles" / "mote_kernels.dir" / "flags.make").read_text()
    for flag in ("-fsanitize=address,undefined", "-O3", "-Werror", "-Wall", "-Wextra"):
        assert flag in flags, flag
    for target in ("kernels/libmote_kernels.a", "runtime/libmote_runtime.a", "ports/linux/libmote.so",
                   "tests/runtime/loader_check", "tests/runtime/loader_check_all"):
        assert (asan_build / target).exists(), target
    # the command line in CMakeLists.txt is still the documented one
    assert "-DMOTE_SANITIZE=ON     (ASan + UBSan)" in (H.ROOT / "CMakeLists.txt").read_text()
