"""Fixtures of the kernel tests: the compiled kernel library."""
import os

import pytest

from tests.kernels.kernels_ffi import LIB, Kernels, build_lib


@pytest.fixture(scope="session")
def K() -> Kernels:
    """MOTE_KERNELS_SANITIZE=1 builds with ASan/UBSan (run pytest with
    LD_PRELOAD=$(cc -print-file-name=libasan.so) ASAN_OPTIONS=detect_leaks=0);
    MOTE_KERNELS_CFLAGS adds compiler flags (e.g. -march=native, -DMOTE_GEMM_NO_VEC)."""
    if os.environ.get("MOTE_KERNELS_SANITIZE"):
        flags = ["-fsanitize=address,undefined", "-fno-sanitize-recover=undefined", "-g", "-O1"]
        return Kernels(build_lib(flags, LIB.with_name("libmote_kernels_asan.so")))
    extra = os.environ.get("MOTE_KERNELS_CFLAGS", "").split()
    if extra:  # e.g. "-march=native" or "-DMOTE_GEMM_NO_VEC"
        return Kernels(build_lib(extra, LIB.with_name("libmote_kernels_extra.so")))
    return Kernels(build_lib())
