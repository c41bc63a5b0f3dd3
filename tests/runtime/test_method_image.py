"""Method images (mote/method.h, aot/deploy/image.py): the runtime state in flash.

`aot generate` writes every method's state as const data (model_image.c);
the embedding API hands it to mote_method_init, which computes every entry
from the program and compares. Checked here on the host (the generated
sources built with the Linux port, the image in the executable's read-only
.rodata, so any write to it by init or execute would fault):
  - RAM: no state buffer (MOTE_MODEL_STATE_BYTES 0, no mote_embed_state),
    and the image's flash bytes are exactly the state's entry counts x the
    board's entry sizes (ops.json method_image_bytes);
  - the image inits and runs (small_cnn int8, with two et_views: their
    outputs carry their inputs' storage in the image);
  - one changed entry of any table (a tensor's shape or storage, an int, a
    kernel argument, an instruction, a count) is MOTE_ERR_BAD_IMAGE.
"""
import json
import re
import subprocess
from pathlib import Path

import pytest

import zoo
from aot.cli import main
from aot.paths import PORTS_DIR
from aot.deploy.image import REGIONS

HOST_FLAGS = ["-std=c99", "-Wall", "-Wextra", "-Wpedantic", "-Wmissing-prototypes", "-Werror", "-O1"]
APP = r"""
#include <stdio.h>
#include <string.h>
#include "mote/model.h"
#include "mote_model.h"
static int8_t x[MOTE_MODEL_INPUT0_BYTES];
int main(void)
{
    const void *y;
    size_t n;
    mote_err_t err = mote_model_init();
    if (err == MOTE_OK) err = mote_model_set_input(0, x, sizeof x);
    if (err == MOTE_OK) err = mote_model_run();
    if (err == MOTE_OK) err = mote_model_get_output(0, &y, &n);
    printf("%s\n", mote_err_name(err));
    return err != MOTE_OK;
}
"""


@pytest.fixture(scope="module")
def generated(tmp_path_factory):
    out = tmp_path_factory.mktemp("image") / "small_cnn-an505"
    assert main(["generate", str(zoo.path("small_cnn")), "--board", "mps2-an505", "--int8", "--int8-io",
                 "-o", str(out)]) == 0
    return out


def _build_and_run(out: Path, image_text: str, tmp: Path) -> tuple:
    """The generated sources with `image_text` as model_image.c, built for this host (no PIE:
    the const tables with their pointers stay in read-only .rodata) and run:
    (error name printed, executable)."""
    src = json.loads((out / "mote_sources.json").read_text())
    (tmp / "model_image.c").write_text(image_text)
    (tmp / "app.c").write_text(APP)
    sources = [str(tmp / "model_image.c") if Path(p).name == "model_image.c" else p for p in src["sources"]]
    defines = [f"-D{k}" if v is None else f"-D{k}={v}" for k, v in src["defines"].items()]
    exe = tmp / "app"
    subprocess.run(["cc", "-fno-pie", "-no-pie"] + HOST_FLAGS + [f"-I{d}" for d in src["include_dirs"]] + defines + sources
                   + [str(PORTS_DIR / "linux" / "port_linux.c"), str(tmp / "app.c"), "-lm", "-o", str(exe)],
                   check=True, capture_output=True, text=True)
    r = subprocess.run([str(exe)], capture_output=True, text=True, timeout=60)
    return r.stdout.strip(), exe


def _table(text: str, name: str) -> tuple:
    """(start, end) character span of the rows of table `name` in model_image.c."""
    m = re.search(rf"{name}\[\d+\] = \{{\n(.*?)\n\}};", text, re.S)
    return m.start(1), m.end(1)


def _edit_row(text: str, name: str, row: int, edit) -> str:
    a, b = _table(text, name)
    rows = text[a:b].split(",\n")
    new = edit(rows[row])
    assert new != rows[row]
    rows[row] = new
    return text[:a] + ",\n".join(rows) + text[b:]


def test_no_state_in_ram_and_exact_image_bytes(generated):
    from aot.host.runtime import Program
    from aot.deploy.boards import load_board
    from aot.deploy.generate import _target_abi_sizes
    from aot.deploy.image import REGIONS, image_bytes
    header = (generated / "mote_model.h").read_text()
    assert "#define MOTE_MODEL_STATE_BYTES 0u" in header and "#define MOTE_MODEL_IMAGE 1" in header
    mem = json.loads((generated / "ops.json").read_text())["memory"]
    counts = Program((generated / "model.pte").read_bytes()).state_counts(0)
    sizes = _target_abi_sizes(load_board("mps2-an505"), generated)
    # Cortex-M33 ABI: 16-byte values, 24-byte tensors, 28-byte instructions, 4-byte pointers
    assert [sizes[k] for k in REGIONS] == [16, 24, 8, 4, 28, 4]
    assert mem["runtime_state_bytes"] == 0
    assert mem["method_image_bytes"] == image_bytes(counts, sizes) == sum(
        (counts[k] * sizes[k] + 7) // 8 * 8 for k in REGIONS)
    text = (generated / "model_image.c").read_text()
    assert f"mote_image0_values[{counts['values']}]" in text and f"mote_image0_kargs[{counts['kargs']}]" in text


def test_image_inits_and_runs_from_read_only_memory(generated, tmp_path):
    text = (generated / "model_image.c").read_text()
    assert text.count("et_view") == 0 and "mote_embed_arena0 +" in text
    out, exe = _build_and_run(generated, text, tmp_path)
    assert out == "MOTE_OK"
    syms = subprocess.run(["nm", str(exe)], capture_output=True, text=True, check=True).stdout
    assert "mote_embed_state" not in syms
    # the tables are read-only data of the executable
    assert all(re.search(rf" r mote_image0_{k}\b", syms) for k in REGIONS)
    assert re.search(r" R mote_model_images\b", syms)


def _view_output_tensor(text: str) -> int:
    """Tensor row of the first et_view's output (an instruction row {6u, in, out, ...})."""
    a, b = _table(text, "mote_image0_instrs")
    out = int(re.search(r"\{6u, \d+u, (\d+)u", text[a:b]).group(1))
    a, b = _table(text, "mote_image0_values")
    row = text[a:b].split(",\n")[out]
    return int(re.search(r"mote_image0_tensors\[(\d+)\]", row).group(1))


TAMPER = {
    "tensor numel": lambda t: _edit_row(t, "mote_image0_tensors", 0, lambda r: re.sub(
        r"(NULL|\]\)|u\)), (\d+)u, ", lambda m: f"{m.group(1)}, {int(m.group(2)) + 1}u, ", r, count=1)),
    "planned storage": lambda t: _edit_row(
        t, "mote_image0_tensors", next(i for i, r in enumerate(t[slice(*_table(t, "mote_image0_tensors"))]
                                                              .split(",\n")) if "mote_embed_arena0 +" in r),
        lambda r: re.sub(r"mote_embed_arena0 \+ (\d+)u", lambda m: f"mote_embed_arena0 + {int(m.group(1)) + 8}u", r,
                         count=1)),
    "view output storage": lambda t: _edit_row(t, "mote_image0_tensors", _view_output_tensor(t), lambda r: re.sub(
        r"mote_embed_arena0 \+ (\d+)u", lambda m: f"mote_embed_arena0 + {int(m.group(1)) + 4}u", r, count=1)),
    "int value": lambda t: _edit_row(t, "mote_image0_values", next(
        i for i, r in enumerate(t[slice(*_table(t, "mote_image0_values"))].split(",\n")) if ".i = " in r
        and ".tag = 2u" in r), lambda r: re.sub(r"\.i = (-?\d+)", lambda m: f".i = {int(m.group(1)) + 1}", r)),
    "kernel argument": lambda t: _edit_row(t, "mote_image0_kargs", 0, lambda r: re.sub(
        r"values\[(\d+)\]", lambda m: f"values[{int(m.group(1)) + 1}]", r)),
    "instruction": lambda t: _edit_row(t, "mote_image0_instrs", 0, lambda r: re.sub(
        r"^(\s*\{\d+u, )(\d+)u", lambda m: f"{m.group(1)}{int(m.group(2)) + 1}u", r)),
    "count": lambda t: re.sub(r"(mote_image0_kargs, \{(?:\d+u, ){5})(\d+)u",
                              lambda m: f"{m.group(1)}{int(m.group(2)) - 1}u", t),
}


@pytest.mark.parametrize("what", list(TAMPER))
def test_any_changed_entry_is_bad_image(generated, tmp_path, what):
    text = (generated / "model_image.c").read_text()
    bad = TAMPER[what](text)
    assert bad != text
    out, _ = _build_and_run(generated, bad, tmp_path)
    assert out == "MOTE_ERR_BAD_IMAGE", what


SYNTH_APP = r"""
#include <stdio.h>
#include "mote/method.h"
#include "model_pte.h"
extern const mote_method_image_t mote_model_images[1];
uint8_t mote_embed_arena0[128] __attribute__((aligned(16)));

static mote_err_t f32(const mote_value_t *v, const mote_tensor_t **t)
{
    if (v->tag != MOTE_TAG_TENSOR || v->u.t->dtype != MOTE_DTYPE_FLOAT32) return MOTE_ERR_KERNEL_ARGS;
    *t = v->u.t;
    return MOTE_OK;
}
mote_err_t mote_kernel_aten_relu_out(mote_kernel_ctx_t *ctx, mote_value_t *const *args, uint32_t nargs);
mote_err_t mote_kernel_aten_relu_out(mote_kernel_ctx_t *ctx, mote_value_t *const *args, uint32_t nargs)
{
    const mote_tensor_t *a, *o;
    uint32_t i;
    (void)ctx;
    if (nargs != 2u || f32(args[0], &a) || f32(args[1], &o)) return MOTE_ERR_KERNEL_ARGS;
    for (i = 0; i < o->numel; i++) ((float *)o->data)[i] = ((const float *)a->data)[i] > 0.0f ? ((const float *)a->data)[i] : 0.0f;
    return MOTE_OK;
}
mote_err_t mote_kernel_aten_add_out(mote_kernel_ctx_t *ctx, mote_value_t *const *args, uint32_t nargs);
mote_err_t mote_kernel_aten_add_out(mote_kernel_ctx_t *ctx, mote_value_t *const *args, uint32_t nargs)
{
    (void)ctx; (void)args; (void)nargs;
    return MOTE_ERR_KERNEL_ARGS; /* jumped over */
}
const mote_kernel_entry_t mote_kernel_registry[] = {{"aten::add.out", mote_kernel_aten_add_out},
                                                   {"aten::relu.out", mote_kernel_aten_relu_out}};
const uint8_t mote_kernel_registry_outputs[] = {1u, 1u};
const uint32_t mote_kernel_registry_len = 2u;
const mote_backend_t *const mote_backend_registry[1] = {NULL};
const uint32_t mote_backend_registry_len = 0u;

int main(void)
{
    static mote_program_t prog;
    static mote_method_t m;
    mote_memory_t mem = {0};
    const mote_tensor_t *y;
    static const float x[6] = {-3, -2, -1, 0, 1, 2};
    mote_err_t e = mote_program_load(&prog, mote_model_pte, MOTE_MODEL_PTE_SIZE);
    mem.arenas[0].ptr = mote_embed_arena0;
    mem.arenas[0].size = sizeof mote_embed_arena0;
    mem.num_arenas = 1;
    mem.image = &mote_model_images[0];
    if (e == MOTE_OK) e = mote_method_init(&m, &prog, 0, &mem);
    if (e == MOTE_OK) e = mote_method_set_input(&m, 0, x, sizeof x);
    if (e == MOTE_OK) e = mote_method_execute(&m);
    if (e == MOTE_OK) e = mote_method_get_output(&m, 0, &y);
    printf("%s", mote_err_name(e));
    if (e == MOTE_OK) for (int i = 0; i < 6; i++) printf(" %g", (double)((const float *)y->data)[i]);
    printf("\n");
    return e != MOTE_OK;
}
"""


def test_every_value_kind_view_and_jump_in_an_image(tmp_path, testk_lib):
    """The hand-built program of tests/runtime/_synth.py (et_view, a jump, a free, every value
    kind: ints, bools, a double, a string, int/double/bool lists, tensor and optional tensor
    lists), without its MoveCall: an image that inits and runs from read-only memory; with the
    MoveCall no image (init would rewrite a value)."""
    import copy
    from types import SimpleNamespace
    import _synth as S
    from aot.deploy.generate import pte_header_text, pte_source_text
    from aot.deploy.image import image_source
    from aot.paths import RUNTIME_DIR

    def fake(spec):
        return SimpleNamespace(pte=S.build(spec), ptd=None, name="synth",
                               spec=SimpleNamespace(arena_sizes=spec["buffer_sizes"][1:]))
    spec = copy.deepcopy(S.default_spec())
    assert image_source(fake(spec), [], library=testk_lib) is None  # the MoveCall
    spec["instrs"] = spec["instrs"][:5]
    c = fake(spec)
    text = image_source(c, [], library=testk_lib)
    for kind in (".str = {(const char *)(mote_model_pte + ", ".d = 0x1.0000000000000p-1", ".doubles = {",
                 ".bools = {", ".ints = {", ".tensors = {", ".b = false"):
        assert kind in text, kind
    (tmp_path / "model_image.c").write_text(text)
    (tmp_path / "model_pte.h").write_text(pte_header_text("synth", len(c.pte)))
    (tmp_path / "model_pte.c").write_text(pte_source_text("synth", c.pte))
    (tmp_path / "app.c").write_text(SYNTH_APP)
    exe = tmp_path / "app"
    srcs = [str(p) for p in sorted((RUNTIME_DIR / "src").glob("*.c"))]
    subprocess.run(["cc", "-fno-pie", "-no-pie", "-std=c99", "-O1", f"-I{RUNTIME_DIR / 'include'}",
                    f"-I{tmp_path}", str(tmp_path / "app.c"), str(tmp_path / "model_image.c"),
                    str(tmp_path / "model_pte.c"), *srcs, "-o", str(exe)], check=True, capture_output=True, text=True)
    out = subprocess.run([str(exe)], capture_output=True, text=True, timeout=60).stdout.split()
    assert out == ["MOTE_OK", "0", "0", "0", "0", "1", "2"]  # relu over the view of x, the add jumped over
    syms = subprocess.run(["nm", str(exe)], capture_output=True, text=True, check=True).stdout
    assert all(re.search(rf" r mote_image0_{k}\b", syms) for k in REGIONS)


def _synth_image_run(tmp_path, testk_lib, spec) -> list:
    """The _synth program of `spec` with its image (aot.deploy.image), built with SYNTH_APP and run."""
    from types import SimpleNamespace
    import _synth as S
    from aot.deploy.generate import pte_header_text, pte_source_text
    from aot.deploy.image import image_source
    from aot.paths import RUNTIME_DIR
    c = SimpleNamespace(pte=S.build(spec), ptd=None, name="synth",
                        spec=SimpleNamespace(arena_sizes=spec["buffer_sizes"][1:]))
    text = image_source(c, [], library=testk_lib)
    assert text is not None
    (tmp_path / "model_image.c").write_text(text)
    (tmp_path / "model_pte.h").write_text(pte_header_text("synth", len(c.pte)))
    (tmp_path / "model_pte.c").write_text(pte_source_text("synth", c.pte))
    (tmp_path / "app.c").write_text(SYNTH_APP)
    exe = tmp_path / "app"
    srcs = [str(p) for p in sorted((RUNTIME_DIR / "src").glob("*.c"))]
    subprocess.run(["cc", "-fno-pie", "-no-pie", "-std=c99", "-O1", f"-I{RUNTIME_DIR / 'include'}",
                    f"-I{tmp_path}", str(tmp_path / "app.c"), str(tmp_path / "model_image.c"),
                    str(tmp_path / "model_pte.c"), *srcs, "-o", str(exe)], check=True, capture_output=True, text=True)
    return subprocess.run([str(exe)], capture_output=True, text=True, timeout=60).stdout.split()


def test_view_chain_across_value_windows_in_an_image(tmp_path, testk_lib):
    """With an image, init proves view order one window of 2,048 value indices at a time
    (runtime/src/method_init.c image_views_check): a chain x -> v -> w whose by-view values sit
    in different windows (v at index 2,500, w at 5) inits and runs; relu(w) is relu(x)."""
    import _synth as S
    values = [(S.TENSOR, dict(dtype=S.F32, sizes=[2, 3], mem=(1, 0))),   # 0 x (input)
              (S.INT, 3), (S.INT, 2), (S.INT_LIST, [1, 2]),              # 1..3 (3, 2)
              (S.TENSOR, dict(dtype=S.F32, sizes=[3, 2], mem=(1, 32))),  # 4 y (output)
              (S.TENSOR, dict(dtype=S.F32, sizes=[3, 2], mem=None))]     # 5 w: a view of v
    values += [(S.INT, k) for k in range(2500 - len(values))]
    values.append((S.TENSOR, dict(dtype=S.F32, sizes=[3, 2], mem=None)))  # 2500 v: a view of x
    spec = dict(values=values, instrs=[(S.KERNEL, dict(op=0, args=[0, 3, 2500])),
                                       (S.KERNEL, dict(op=0, args=[2500, 3, 5])),
                                       (S.KERNEL, dict(op=1, args=[5, 4, 4]))],
                ops=[("executorch_prim::et_view", "default"), ("aten::relu", "out")], inputs=[0], outputs=[4],
                buffer_sizes=[0, 128], name="forward")
    assert _synth_image_run(tmp_path, testk_lib, spec) == ["MOTE_OK", "0", "0", "0", "0", "1", "2"]
