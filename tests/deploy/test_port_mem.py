"""ports/cortex-m/mem.c: the firmware's memcpy / memmove / memset (in place of
newlib-nano's) give the C library's bytes for every alignment, length and
overlap, compiled for the host with the functions renamed, and compile for
Cortex-M without calling themselves."""
import shutil
import subprocess

import pytest

from aot.paths import PORTS_DIR

MEM = PORTS_DIR / "cortex-m" / "mem.c"

HARNESS = r"""
#include <stdio.h>
#include <stdint.h>
#include <string.h>
void *t_memcpy(void *restrict, const void *restrict, size_t);
void *t_memmove(void *, const void *, size_t);
void *t_memset(void *, int, size_t);
int main(void)
{
    static uint8_t a[256], b[256], ref[256];
    unsigned seed = 1, checked = 0;
    for (int trial = 0; trial < 300000; trial++) {
        size_t n, so, dof;
        for (int i = 0; i < 256; i++) { seed = seed * 1103515245u + 12345u; a[i] = (uint8_t)(seed >> 16); }
        memcpy(b, a, 256);
        memcpy(ref, a, 256);
        seed = seed * 1103515245u + 12345u; n = (seed >> 16) % 70;
        seed = seed * 1103515245u + 12345u; so = (seed >> 16) % 100;
        seed = seed * 1103515245u + 12345u; dof = (seed >> 16) % 100;
        switch (trial % 3) {
        case 0:
            memmove(ref + dof, ref + so, n);
            if (t_memmove(b + dof, b + so, n) != b + dof) return 2;
            break;
        case 1:
            if (!(dof + n <= so || so + n <= dof)) continue; /* memcpy: no overlap */
            memcpy(ref + dof, ref + so, n);
            if (t_memcpy(b + dof, b + so, n) != b + dof) return 2;
            break;
        default:
            memset(ref + dof, (int)so - 50, n);
            if (t_memset(b + dof, (int)so - 50, n) != b + dof) return 2;
        }
        if (memcmp(ref, b, 256) != 0) {
            printf("FAIL op %d n %zu src %zu dst %zu\n", trial % 3, n, so, dof);
            return 1;
        }
        checked++;
    }
    printf("ok %u\n", checked);
    return 0;
}
"""


def test_mem_functions_match_the_c_library(tmp_path):
    cc = shutil.which("cc") or shutil.which("gcc")
    (tmp_path / "h.c").write_text(HARNESS)
    obj = tmp_path / "mem.o"
    subprocess.run([cc, "-std=c99", "-O2", "-Wall", "-Wextra", "-Werror", "-fno-builtin", "-Dmemcpy=t_memcpy",
                    "-Dmemmove=t_memmove", "-Dmemset=t_memset", "-c", str(MEM), "-o", str(obj)], check=True)
    exe = tmp_path / "t"
    subprocess.run([cc, "-std=c99", "-O2", str(tmp_path / "h.c"), str(obj), "-o", str(exe)], check=True)
    r = subprocess.run([str(exe)], capture_output=True, text=True)
    assert r.returncode == 0, r.stdout
    assert r.stdout.startswith("ok ") and int(r.stdout.split()[1]) > 200000


@pytest.mark.parametrize("cpu", ["cortex-m0plus", "cortex-m33"])
def test_mem_functions_never_call_themselves(tmp_path, cpu):
    """GCC turns copy loops into memcpy calls; mem.c must not (it would recurse)."""
    obj = tmp_path / "mem.o"
    subprocess.run(["arm-none-eabi-gcc", "-mthumb", f"-mcpu={cpu}", "-Os", "-std=c99", "-Wall", "-Wextra",
                    "-Wpedantic", "-Werror", "-c", str(MEM), "-o", str(obj)], check=True)
    undefined = subprocess.run(["arm-none-eabi-nm", "-u", str(obj)], capture_output=True, text=True).stdout
    assert undefined.split() == []
    dis = subprocess.run(["arm-none-eabi-objdump", "-dr", str(obj)], capture_output=True, text=True).stdout
    assert "R_ARM_THM_CALL\tmem" not in dis.replace("mem_forward", "")
