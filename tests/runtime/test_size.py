"""The runtime core (no kernels) for Cortex-M33 at -Os compiles warning-free with no static
state (data and bss empty); its flash footprint is printed here and tracked against the
8 KiB goal by benchmarks/bench_size.py."""
import shutil
import subprocess

import _harness as H

SRCS = ["fb.c", "program.c", "key_index.c", "method_init.c", "method_verify.c", "method_exec.c", "crc32.c", "pool.c"]


def test_core_text_size_cortex_m33(tmp_path):
    gcc = shutil.which("arm-none-eabi-gcc")
    assert gcc, "arm-none-eabi-gcc missing (scripts/bootstrap.sh installs gcc-arm-none-eabi)"
    objs = []
    for src in SRCS:
        obj = tmp_path / (src + ".o")
        subprocess.run([gcc, "-std=c99", "-Os", "-mcpu=cortex-m33", "-mthumb", "-ffunction-sections",
                        "-fdata-sections", "-Wall", "-Wextra", "-Wpedantic", "-Wmissing-prototypes", "-Werror",
                        "-I", str(H.ROOT / "runtime" / "include"), "-I", str(H.ROOT / "runtime" / "src"),
                        "-c", str(H.ROOT / "runtime" / "src" / src), "-o", str(obj)], check=True)
        objs.append(str(obj))
    out = subprocess.run(["arm-none-eabi-size", "-t", *objs], capture_output=True, text=True, check=True).stdout
    text, data, bss = (int(x) for x in out.strip().splitlines()[-1].split()[:3])
    print(f"runtime core, cortex-m33 -Os: text {text} B, data {data} B, bss {bss} B")
    assert data == 0 and bss == 0  # no static state: everything lives in caller memory
    assert text > 0  # the size goal (8 KiB linked) is a benchmark figure: benchmarks/bench_size.py
