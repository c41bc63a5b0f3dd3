"""Several models in one firmware: `aot generate` and `aot build` with more than one
model file (or one given as NAME=path.py).

    aot generate kws=ds_cnn.py digits=cnn.py --board mps2-an505 --int8 [--memory shared|separate]

One model given without NAME= keeps today's output byte for byte (aot.deploy.generate):
nothing here runs. Otherwise the folder holds, per model NAME (a C identifier), its own
sub-folder NAME/ with what a one-model generate writes (model_pte.c/.h, mote_model.h,
model_image.c, model.pte, ops.json, [model_ptd.c, model.ptd], [model_selftest*.c,
model.bpte]) and three generated files that make its names its own:

  NAME/mote_embed_names.h      #defines that rename every external symbol of the model
                               (mote_model_init -> mote_model_NAME_init, mote_model_pte ->
                               mote_model_NAME_pte, the arenas, the self-test's data, ...)
                               and name its headers; every generated C file of NAME/ includes
                               it first
  NAME/mote_embed_NAME.c       the ONE embedding source (runtime/embed/mote_model.c)
                               compiled for this model: names, public header, #include
  NAME/mote_embed_selftest_NAME.c   (--selftest) runtime/embed/mote_model_selftest.c, the same way

and, beside them, for the whole build:

  mote_model_NAME.h            the public header of model NAME: the macros of its
                               mote_model.h as MOTE_MODEL_NAME_* and the embedding API
                               (mote/model.h) as mote_model_NAME_* functions
  mote_models.h                includes every mote_model_NAME.h; MOTE_MODELS_COUNT,
                               MOTE_MODELS_SHARED, MOTE_MODELS_EACH(X) (X(name, NAME) per model)
  registry.c                   the kernel registry of the union of the models' operators
  mote_models.c                (--memory shared) the one activation arena, sized by the
                               largest plan, and the one kernel scratch
  mote_sources.json            today's keys (sources, include_dirs, defines: each macro's
                               largest value over the models, ...), plus "models" (one entry
                               per model) and "memory": "shared" | "separate"

Memory: "shared" (the default) gives every model's method the same arena 0 (activations and
the kernel scratch planned in it): the models run one at a time, an output is valid until any
model runs again. Each model keeps its own runtime state (or method image) and its own
mutable-buffer arena (arena 1: state across runs), so running B between two runs of A
changes nothing of A. "separate": every model has its own arena and scratch; the runtime
and the kernels have no writable global (tests/deploy/test_multimodel.py proves it from the
objects' symbol tables), so two threads may run two models at once.

One recipe per command: the build options (--int8, --opt, --selftest ...) apply to every model.
"""
from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Optional, Sequence

from aot.errors import BuildError, MoteError
from aot.paths import RUNTIME_DIR

#: --memory: models take turns in one arena, or each has its own
MEMORY_MODES = ("shared", "separate")
DEFAULT_MEMORY = "shared"
#: a model's NAME (NAME=path.py): a C identifier of lowercase letters, digits and '_'
NAME_PATTERN = re.compile(r"[a-z_][a-z0-9_]*")
#: the embedding API's declarations, read to write each model's prototypes
MODEL_API_HEADER = RUNTIME_DIR / "include" / "mote" / "model.h"
#: the generated symbols of one model (aot.deploy.generate's and aot.deploy.image's
#: sources, runtime/embed/mote_model.c's arenas) -> their suffix in mote_model_NAME_<suffix>
MODEL_SYMBOLS = {"mote_model_pte": "pte", "mote_model_ptd": "ptd", "mote_model_images": "images",
                 "mote_selftest_inputs": "selftest_inputs", "mote_selftest_expected": "selftest_expected",
                 "mote_embed_arena0": "arena0", "mote_embed_arena1": "arena1",
                 "mote_inputs": "inputs", "mote_inputs_count": "inputs_count"}
#: --memory shared: the build's one activation arena and kernel scratch (mote_models.c)
SHARED_ARENA = "mote_models_arena0"
SHARED_SCRATCH = "mote_models_scratch"
#: MOTE_ARENA_ALIGN (mote/method.h): an empty arena still takes one aligned block
ARENA_ALIGN = 16
NAMES_HEADER = "mote_embed_names.h"
MODELS_HEADER = "mote_models.h"
SHARED_SOURCE = "mote_models.c"
EMBED_MODEL_SOURCE = RUNTIME_DIR / "embed" / "mote_model.c"


# --------------------------------------------------------------------------- command line


@dataclass(frozen=True)
class ModelArg:
    """One MODEL argument: its C name, its file, and whether NAME= gave the name."""
    name: str
    path: str
    named: bool


def default_name(path: str) -> str:
    """A model file's stem made a C identifier: lowercase, other characters '_', a leading
    digit prefixed with 'm' ("DS-CNN.v2.py" -> "ds_cnn_v2")."""
    stem = Path(path).name
    for suffix in (".py", ".pt2"):
        if stem.endswith(suffix):
            stem = stem[:-len(suffix)]
    name = re.sub(r"[^a-z0-9_]", "_", stem.lower()) or "model"
    return "m" + name if name[0].isdigit() else name


def parse_model_args(values: Sequence[str]) -> list:
    """The MODEL arguments (`path.py` or `NAME=path.py`) as ModelArgs. Raises MoteError (one
    line) for a NAME that is not a lowercase C identifier and for a name given twice."""
    out, seen = [], {}
    for v in values:
        name, sep, path = v.partition("=")
        if sep and not Path(v).exists():
            if not path:
                raise MoteError(f"model {v}: the path after '{name}=' is missing (NAME=path.py)")
            if not NAME_PATTERN.fullmatch(name):
                raise MoteError(f"model name {name!r} (in {v}): use lowercase letters, digits and '_', "
                                "not starting with a digit (it names the C API: mote_model_<name>_init)")
            arg = ModelArg(name, path, True)
        else:
            arg = ModelArg(default_name(v), v, False)
        if arg.name in seen:
            raise MoteError(f"two models are named {arg.name!r} ({seen[arg.name]} and {arg.path}): "
                            "name them apart: NAME=path.py (the same name=path in CMake's MODELS or mote_add_model's NAME "
                            "keyword, and in PlatformIO's custom_mote_model)")
        seen[arg.name] = arg.path
        out.append(arg)
    symbols: dict = {}
    for arg in out:  # "a" and "a_selftest" would both name mote_model_a_selftest_inputs
        for sym in model_symbols(arg.name):
            if sym in symbols:
                raise MoteError(f"models {symbols[sym]!r} and {arg.name!r} would both define {sym}: rename one")
            symbols[sym] = arg.name
    return out


def model_symbols(name: str) -> list:
    """The external C names of model `name` in a several-models build (its API and data)."""
    return [f"mote_model_{name}_{fn}" for _, fn, _ in model_api()] + \
        [f"mote_model_{name}_{suffix}" for suffix in MODEL_SYMBOLS.values()]


def is_multi(models: Sequence[ModelArg]) -> bool:
    """True when the build is the several-models layout: more than one model, or a NAME=."""
    return len(models) > 1 or any(m.named for m in models)


def split_model_args(args) -> None:
    """aot generate / aot build: args.model (the MODEL arguments) becomes the one path of a
    one-model command (today's), or, with several models or a NAME=, args.models (ModelArgs)
    and args.model the first path (what the model-less checks look at). Refuses --memory
    without several models, and the options that belong to one model (one line each)."""
    if not isinstance(args.model, list):  # split already
        return
    models = parse_model_args(args.model)
    if not is_multi(models):
        args.model, args.models = models[0].path, None
        if getattr(args, "memory", None):
            raise MoteError("--memory shared|separate chooses how several models share RAM: "
                            "give two models or more (or NAME=path.py)")
        return
    for option, why in (("calib", "one --calib file cannot fit several models' inputs (each model "
                                  "file's calibration_data() is used)"),
                        ("inputs", "--inputs holds one model's inputs (each model runs its example inputs)"),
                        ("uart_inputs", "--uart-inputs feeds one model"),
                        ("trace", "--trace traces one model"),
                        ("method", "--method picks a method of one model file"),
                        ("weights_in_sram", "--weights-in-sram copies one program")):
        if getattr(args, option, None):
            raise MoteError(f"several models: {why}; build them one at a time for it")
    args.models = models
    args.model = models[0].path
    args.memory = args.memory or DEFAULT_MEMORY


# --------------------------------------------------------------------------- generated C


def model_api() -> list:
    """The embedding API's functions from mote/model.h, in its order:
    [(declaration before the name, e.g. "MOTE_NODISCARD mote_err_t ", suffix "init", params)]."""
    text = MODEL_API_HEADER.read_text(encoding="utf-8")
    found = re.findall(r"^((?:MOTE_NODISCARD )?[A-Za-z_][\w ]*?[ *])mote_model_(\w+)\(([^)]*)\);$", text, re.M)
    if not found:
        raise BuildError(f"{MODEL_API_HEADER}: no mote_model_* declarations found")
    return found


def names_header(name: str, memory: str, shared_arena: int, shared_scratch: int) -> str:
    """NAME/mote_embed_names.h: the model's names (see the module docstring)."""
    renames = [(f"mote_model_{fn}", f"mote_model_{name}_{fn}") for _, fn, _ in model_api()]
    for sym, suffix in MODEL_SYMBOLS.items():
        renames.append((sym, f"mote_model_{name}_{suffix}"))
    lines = [f"/* Generated by aot generate for model \"{name}\" of a build with several models: the names",
             " * of its embedding API and its generated data (runtime/embed/mote_model.c); do not edit. */",
             f"#ifndef MOTE_EMBED_NAMES_{name.upper()}_H", f"#define MOTE_EMBED_NAMES_{name.upper()}_H", "",
             f"#define MOTE_EMBED_MODEL_NAME \"{name}\" /* its MOTE SELFTEST lines end with model={name} */",
             f"#define MOTE_EMBED_MODEL_HEADER \"{name}/mote_model.h\"",
             f"#define MOTE_EMBED_PTE_HEADER \"{name}/model_pte.h\""]
    if memory == "shared":
        renames = [(a, SHARED_ARENA if a == "mote_embed_arena0" else b) for a, b in renames]
        lines += ["/* --memory shared: one activation arena (and one kernel scratch) for every model (mote_models.c) */",
                  f"#define MOTE_EMBED_SHARED_ARENA0_BYTES {shared_arena}u"]
        if shared_scratch:
            lines.append(f"#define MOTE_EMBED_SHARED_SCRATCH_BYTES {shared_scratch}u")
            renames.append(("mote_embed_scratch", SHARED_SCRATCH))
    lines += [f"#define {a} {b}" for a, b in renames]
    lines += ["/* A host build of the sources (another ABI) gives this model's runtime state size here. */",
              f"#ifdef MOTE_EMBED_{name.upper()}_STATE_BYTES",
              f"#define MOTE_EMBED_STATE_BYTES MOTE_EMBED_{name.upper()}_STATE_BYTES", "#endif"]
    return "\n".join(lines + ["", f"#endif /* MOTE_EMBED_NAMES_{name.upper()}_H */", ""])


def public_header(name: str, private: str) -> str:
    """mote_model_NAME.h from the model's mote_model.h (`private`): its macros as
    MOTE_MODEL_NAME_*, then the embedding API as mote_model_NAME_* functions."""
    upper = name.upper()
    text = re.sub(r"\bMOTE_MODEL_(?=\w)", f"MOTE_MODEL_{upper}_", private)
    guard_end = f"#endif /* MOTE_MODEL_{upper}_H */"
    if guard_end not in text:
        raise BuildError(f"mote_model.h of {name}: no include guard to extend")
    api = [f"/* The embedding API of model \"{name}\": mote/model.h's functions, for this model. */",
           "#include <stddef.h>", "#include <stdint.h>", "", "#include \"mote/method.h\"",
           "#include \"mote/program.h\"", "#include \"mote/types.h\"", "",
           "#ifdef __cplusplus", "extern \"C\" {", "#endif"]
    api += [f"{decl}mote_model_{name}_{fn}({params});" for decl, fn, params in model_api()]
    api += ["#ifdef __cplusplus", "}", "#endif", ""]
    return text.replace(guard_end, "\n".join(api) + guard_end)


def wrapper_source(name: str, embed: str) -> str:
    """NAME/mote_embed_NAME.c (embed "mote_model.c") or NAME/mote_embed_selftest_NAME.c
    (embed "mote_model_selftest.c"): the one embedding source compiled for model NAME."""
    return (f"/* Generated by aot generate: runtime/embed/{embed} for model \"{name}\" of a build with several\n"
            f" * models (its names: {NAMES_HEADER}); do not edit. */\n"
            f"#include \"{NAMES_HEADER}\"\n#include \"mote_model_{name}.h\"\n#include \"{embed}\"\n")


def shared_source(arena: int, scratch: int) -> str:
    """mote_models.c: --memory shared's one activation arena (and kernel scratch)."""
    text = ("/* Generated by aot generate: the memory the models of this build share (--memory shared):\n"
            " * they run one at a time; do not edit. */\n#include <stdint.h>\n\n#include \"mote/method.h\"\n\n"
            f"/* Activations and planned kernel scratch, bytes: the largest plan of the models. */\n"
            f"extern uint8_t {SHARED_ARENA}[];\n"
            f"uint8_t {SHARED_ARENA}[{arena}u] __attribute__((aligned(MOTE_ARENA_ALIGN)));\n")
    if scratch:
        text += (f"/* Kernel scratch the plans do not cover, bytes: the largest of the models. */\n"
                 f"extern uint8_t {SHARED_SCRATCH}[];\n"
                 f"uint8_t {SHARED_SCRATCH}[{scratch}u] __attribute__((aligned(MOTE_ARENA_ALIGN)));\n")
    return text


def models_header(names: Sequence[str], memory: str) -> str:
    """mote_models.h: every model's public header and the list of the models."""
    lines = ["/* Generated by aot generate: the models of this build; do not edit. */",
             "#ifndef MOTE_MODELS_H", "#define MOTE_MODELS_H", ""]
    lines += [f"#include \"mote_model_{n}.h\"" for n in names]
    lines += ["", f"#define MOTE_MODELS_COUNT {len(names)}u",
              "/* 1: --memory shared (one activation arena: run one model at a time; an output is valid",
              " * until any model runs again); 0: --memory separate (each model its own arena). */",
              f"#define MOTE_MODELS_SHARED {1 if memory == 'shared' else 0}",
              "/* X(name, NAME) for every model, in the command's order. */",
              "#define MOTE_MODELS_EACH(X) " + " ".join(f"X({n}, {n.upper()})" for n in names),
              "", "#endif /* MOTE_MODELS_H */", ""]
    return "\n".join(lines)


# --------------------------------------------------------------------------- memory


def arena0_bytes(compiled) -> int:
    """Bytes of the model's activation arena (memory id 1, MOTE_MODEL_ARENA0_BYTES) as
    mote_model.c declares it (an empty one: one aligned block)."""
    sizes = list(compiled.spec.arena_sizes)  # index = memory id; 0 is the constants'
    return max(int(sizes[1]) if len(sizes) > 1 else 0, ARENA_ALIGN)


def mutable_bytes(compiled) -> int:
    """Bytes of the model's mutable buffers' arena (memory id 2, MOTE_MODEL_ARENA1_BYTES; 0: none)."""
    sizes = list(compiled.spec.arena_sizes)
    return int(sizes[2]) if len(sizes) > 2 else 0


def planned_ram(models: list, memory: str) -> dict:
    """RAM the embedding API's buffers take, bytes: {"arena", "mutable", "state", "scratch",
    "total"}; models: [{"compiled", "state", "scratch"}]. shared: the largest arena and scratch."""
    arenas = [arena0_bytes(m["compiled"]) for m in models]
    scratch = [int(m["scratch"]) for m in models]
    ram = {"arena": max(arenas) if memory == "shared" else sum(arenas),
           "mutable": sum(mutable_bytes(m["compiled"]) for m in models),
           "state": sum(int(m["state"]) for m in models),
           "scratch": max(scratch) if memory == "shared" else sum(scratch)}
    ram["total"] = sum(ram.values())
    return ram


def check_models_fit(models: list, board, memory: str, stack: int = 0) -> None:
    """Each model alone (aot.deploy.generate.check_fits: the error names it), then all of them
    together: RAM (planned_ram + stack) and the programs with their embedded data in flash.
    Raises BuildError in one line naming the model(s) and their largest tensors."""
    from aot.deploy.generate import check_fits, largest
    for m in models:
        try:
            check_fits(m["compiled"].spec, board, m["state"], m["scratch"], m["flash"])
        except BuildError as e:
            msg = str(e)  # "model does not fit ...": the model named once ("model kws does not fit ...")
            raise BuildError(f"model {m['name']} {msg[len('model '):]}" if msg.startswith("model ")
                             else f"model {m['name']}: {msg}") from None
    names = ", ".join(m["name"] for m in models)
    ram = planned_ram(models, memory)
    need = ram["total"] + stack
    if need > board.ram.size:
        worst = max(models, key=lambda m: arena0_bytes(m["compiled"]))
        raise BuildError(
            f"models {names} do not fit {board.name} together (--memory {memory}): they need {need:,} B of "
            f"RAM (arena {ram['arena']:,} + mutable {ram['mutable']:,} + runtime state {ram['state']:,} + "
            f"scratch {ram['scratch']:,}" + (f" + stack {stack:,}" if stack else "") + f"), the board has "
            f"{board.ram.size:,} B: {need - board.ram.size:,} B short"
            + (" (--memory shared would need less)" if memory == "separate" else "")
            + f". Largest tensors of {worst['name']}: {largest(worst['compiled'].spec, False)}")
    region = board.model_region or board.flash
    flash = sum(m["flash"] for m in models)
    if flash > region.size:
        worst = max(models, key=lambda m: m["flash"])
        raise BuildError(
            f"models {names} do not fit {board.name} together: their programs need {flash:,} B of "
            f"{'model region' if board.model_region else 'flash'} ("
            + " + ".join(f"{m['name']} {m['flash']:,}" for m in models) + f"), the board has {region.size:,} B: "
            f"{flash - region.size:,} B short. Largest constants of {worst['name']}: "
            f"{largest(worst['compiled'].spec, constants=True)}")


def merged_defines(per_model: Sequence[dict]) -> dict:
    """The -D macros of several models' builds as one: each macro's largest value (a kernel
    variant, a dtype path, a runtime feature one model needs is compiled in), a flag (None)
    when any model has it."""
    out: dict = {}
    for defs in per_model:
        for k, v in defs.items():
            if k not in out:
                out[k] = v
            elif isinstance(v, int) and isinstance(out[k], int):
                out[k] = max(out[k], v)
    return out


# --------------------------------------------------------------------------- generate


@dataclass
class ModelBuild:
    """One model of a several-models build: name, compiled program, self-test (or None)."""
    name: str
    compiled: object
    selftest: object = None
    path: str = ""


def _prefix_generated(path: Path) -> None:
    """A generated C file of model NAME/ takes the model's names first (mote_embed_names.h)."""
    path.write_text(f"#include \"{NAMES_HEADER}\" /* this model's names: several models in one build */\n"
                    + path.read_text())


def write_models(models: Sequence[ModelBuild], board, stage: Path, memory: str, input_sets=None) -> dict:
    """Every model's sources into stage/NAME/ and the build's shared files into `stage`
    (see the module docstring); checks that they fit (check_models_fit). input_sets:
    {name: blob bytes} of `aot build`'s embedded inputs (counted in flash). Returns
    {"models": [{"name", "compiled", "selftest", "state", "scratch", "flash", "sources",
    "selftest_bytes", "dir"}], "generated": [C sources], "ops": union, "kernels",
    "arena", "scratch"}."""
    from aot.deploy.generate import (input_sets_bytes, select_kernels, target_memory, write_model_sources,
                                     write_registry)
    from aot.deploy.selftest import selftest_blob
    if memory not in MEMORY_MODES:
        raise BuildError(f"--memory {memory}: choose {' or '.join(MEMORY_MODES)}")
    ops = []
    for m in models:
        ops += [op for op in m.compiled.op_names if op not in ops]
    kernels = select_kernels(ops, board)
    infos = []
    for m in models:
        sub = stage / m.name
        sub.mkdir(parents=True, exist_ok=True)
        state, scratch = target_memory(m.compiled, board, sub)
        (sub / "abi_probe.o").unlink(missing_ok=True)
        st_bytes = (len(selftest_blob(m.selftest)) + len(input_sets_bytes(m.compiled.spec, m.selftest.inputs))
                    if m.selftest is not None else 0)
        extra = len((input_sets or {}).get(m.name, b""))
        infos.append({"name": m.name, "path": m.path, "compiled": m.compiled, "selftest": m.selftest, "state": state,
                      "scratch": scratch, "flash": len(m.compiled.pte) + st_bytes + extra, "dir": sub,
                      "selftest_bytes": len(selftest_blob(m.selftest)) if m.selftest is not None else 0})
    check_models_fit(infos, board, memory)
    shared_arena = max(arena0_bytes(m.compiled) for m in models)
    shared_scratch = max(i["scratch"] for i in infos)
    generated = [stage / "registry.c"]
    write_registry(ops, stage / "registry.c")
    for m, info in zip(models, infos):
        sub = info["dir"]
        files = write_model_sources(m.compiled, board, sub, info["state"], m.selftest)
        (sub / "registry.c").unlink()
        files = [f for f in files if f.name != "registry.c"]
        for f in files:
            _prefix_generated(f)
        (sub / NAMES_HEADER).write_text(names_header(m.name, memory, shared_arena, shared_scratch))
        (stage / f"mote_model_{m.name}.h").write_text(public_header(m.name, (sub / "mote_model.h").read_text()))
        (sub / f"mote_embed_{m.name}.c").write_text(wrapper_source(m.name, "mote_model.c"))
        files.append(sub / f"mote_embed_{m.name}.c")
        if m.selftest is not None:
            (sub / f"mote_embed_selftest_{m.name}.c").write_text(wrapper_source(m.name, "mote_model_selftest.c"))
            files.append(sub / f"mote_embed_selftest_{m.name}.c")
        info["sources"] = files
        generated += files
    if memory == "shared":
        (stage / SHARED_SOURCE).write_text(shared_source(shared_arena, shared_scratch))
        generated.append(stage / SHARED_SOURCE)
    (stage / MODELS_HEADER).write_text(models_header([m.name for m in models], memory))
    return {"models": infos, "generated": generated, "ops": ops, "kernels": kernels,
            "arena": shared_arena, "scratch": shared_scratch}


def generated_files(names: Sequence[str], external_weights: bool, selftest: bool, memory: str) -> dict:
    """The files a several-models generate writes, relative to its folder: {"sources",
    "headers"} (what ``aot generate --dry-run --json`` lists for a build system)."""
    from aot.deploy.generate import generated_sources
    sources = ["registry.c"]
    headers = [MODELS_HEADER]
    for n in names:
        sources += [f"{n}/{s}" for s in generated_sources(external_weights, selftest) if s != "registry.c"]
        sources.append(f"{n}/mote_embed_{n}.c")
        if selftest:
            sources.append(f"{n}/mote_embed_selftest_{n}.c")
        headers += [f"mote_model_{n}.h", f"{n}/{NAMES_HEADER}", f"{n}/mote_model.h", f"{n}/model_pte.h"]
    if memory == "shared":
        sources.append(SHARED_SOURCE)
    return {"sources": sources, "headers": headers}


def model_entry(info: dict, out: Path) -> dict:
    """mote_sources.json's "models" entry of one model (paths absolute)."""
    c = info["compiled"]
    return {"name": info["name"], "source": str(Path(info["path"]).resolve()) if info["path"] else "", "int8": bool(c.int8),
            "dir": str(out / info["name"]), "header": str(out / f"mote_model_{info['name']}.h"),
            "prefix": f"mote_model_{info['name']}_", "macro_prefix": f"MOTE_MODEL_{info['name'].upper()}_",
            "memory": dict(c.manifest.get("memory", {})),
            "arena_bytes": arena0_bytes(c), "mutable_bytes": mutable_bytes(c),
            "runtime_state_bytes": int(info["state"]), "scratch_bytes": int(info["scratch"]),
            "inputs": c.manifest["inputs"], "outputs": c.manifest["outputs"],
            "pte_bytes": len(c.pte), "selftest_bytes": info["selftest_bytes"],
            "selftest_cases": info["selftest"].count if info["selftest"] is not None else 0,
            "pte_sha256": hashlib.sha256(c.pte).hexdigest()}


def generate_models(models: Sequence[ModelBuild], board, out_dir, memory: str = DEFAULT_MEMORY,
                    verify_checksum: bool = False, opt: Optional[str] = None):
    """`aot generate` of several models (see the module docstring) into `out_dir`, whole or
    not at all. Returns aot.deploy.generate.Generated. Raises BuildError (a model or all of
    them do not fit, no kernel for an op)."""
    from aot.compiler.pipeline import write_outputs
    from aot.deploy.boards import load_board
    from aot.deploy.firmware import write_binary_info_header
    from aot.deploy.generate import (DEFAULT_OPT, OPT_PROFILES, Generated, check_output_folder, sources_manifest,
                                     staged_folder)
    from aot.deploy.selftest import bpte_bytes
    opt = opt or DEFAULT_OPT
    if opt not in OPT_PROFILES:
        raise BuildError(f"--opt {opt}: choose one of {', '.join(OPT_PROFILES)}")
    board = load_board(board)
    out = Path(out_dir).resolve()
    check_output_folder(out, "mote_sources.json", "generate")
    with staged_folder(out, "generating") as stage:
        w = write_models(models, board, stage, memory)
        for info in w["models"]:
            write_outputs(info["compiled"], info["dir"] / "model.pte")
            if info["selftest"] is not None:
                (info["dir"] / "model.bpte").write_bytes(bpte_bytes(info["compiled"].pte, info["selftest"]))
        write_binary_info_header(board, stage, multi_program(models))
        manifest = sources_manifest(models[0].compiled, board, stage, w["generated"], w["kernels"], False,
                                    verify_checksum, 0, opt)
        manifest_for_models(manifest, w, board, stage, memory, opt)
        text = json.dumps(manifest, indent=2).replace(str(stage), str(out))
        (stage / "mote_sources.json").write_text(text + "\n")
    return Generated(out_dir=out, sources=json.loads((out / "mote_sources.json").read_text()))


def manifest_for_models(manifest: dict, w: dict, board, out: Path, memory: str, opt: str) -> None:
    """sources_manifest's dict of the first model made the whole build's (in place): the
    embedding source compiled per model (not as is), the defines merged, the per-model
    figures under "models"."""
    from aot.deploy.generate import model_defines
    embed = {str(EMBED_MODEL_SOURCE)}
    manifest["sources"] = [s for s in manifest["sources"] if s not in embed]
    defines = {"NDEBUG": None}
    defines.update(merged_defines([model_defines(i["compiled"], board, opt) for i in w["models"]]))
    for k, v in manifest["defines"].items():  # the build's own: MOTE_VERIFY_CHECKSUM
        defines.setdefault(k, v)
    manifest["defines"] = defines
    infos = w["models"]
    manifest.update({
        "model": ",".join(i["name"] for i in infos),
        "int8": all(bool(i["compiled"].int8) for i in infos),
        "memory": memory,
        "models": [model_entry(i, out) for i in infos],
        "inputs": {i["name"]: i["compiled"].manifest["inputs"] for i in infos},
        "outputs": {i["name"]: i["compiled"].manifest["outputs"] for i in infos},
        "pte_bytes": sum(len(i["compiled"].pte) for i in infos),
        "selftest_bytes": sum(i["selftest_bytes"] for i in infos),
        "pte_sha256": hashlib.sha256(b"".join(i["compiled"].pte for i in infos)).hexdigest(),
        "planned_ram": planned_ram(infos, memory),
    })


def multi_program(models: Sequence[ModelBuild]):
    """The Raspberry Pi binary info of a several-models image: the names joined by '+'."""
    from aot.deploy.binary_info import model_program
    return model_program("+".join(m.name for m in models), all(bool(m.compiled.int8) for m in models),
                         sum(int(sum(m.compiled.spec.arena_sizes)) for m in models))


def planned_table(sources: dict, board) -> str:
    """`aot generate`'s size table of several models: each model (program, self-test,
    arena, mutable, state, scratch) and the build's total (--memory shared: the largest
    arena and scratch once) against the board."""
    lines = [f"{'model':<14}{'pte+selftest B':>16}{'arena B':>10}{'mutable B':>11}{'state B':>9}{'scratch B':>11}"]
    for m in sources["models"]:
        lines.append(f"{m['name']:<14}{m['pte_bytes'] + m['selftest_bytes']:>16,}{m['arena_bytes']:>10,}"
                     f"{m['mutable_bytes']:>11,}{m['runtime_state_bytes']:>9,}{m['scratch_bytes']:>11,}")
    ram = sources["planned_ram"]
    flash = sources["pte_bytes"] + sources["selftest_bytes"]
    lines.append(f"{'total (' + sources['memory'] + ')':<14}{flash:>16,}{ram['arena']:>10,}{ram['mutable']:>11,}"
                 f"{ram['state']:>9,}{ram['scratch']:>11,}   RAM {ram['total']:,} B (+ code, stack, your application)")
    region = board.model_region or board.flash
    lines.append(f"{'board budget':<14}{region.size:>16,}   RAM {board.ram.size:,} B "
                 f"({100 * flash / region.size:.1f}% {'model region' if board.model_region else 'flash'}, "
                 f"{100 * ram['total'] / board.ram.size:.1f}% RAM)")
    kern = [f"{Path(p).parent.name}/{Path(p).name}" for p in sources["kernel_sources"] if Path(p).name.startswith("op_")]
    lines.append(f"kernels: {len(kern)} ({', '.join(kern)})")
    return "\n".join(lines)



# --------------------------------------------------------------------------- build


@dataclass
class MultiBuild:
    out_dir: Path
    board: str
    elf: Path
    size: dict
    info: dict


def build_models(models: Sequence[ModelBuild], board, out_dir, memory: str = DEFAULT_MEMORY, opt: str = "speed",
                 kernel_opt: str = "auto", verify_checksum: bool = False, code_in_sram=None) -> MultiBuild:
    """`aot build` of several models: the sources write_models writes, the firmware app
    (ports/cortex-m/app/mote_app.c with MOTE_APP_MODELS: every model initialised, then case k of
    each in turn), each model's example inputs or --selftest cases embedded; size.json with
    each model and the total (models_size). Whole or not at all, as aot.deploy.build.
    Raises BuildError (does not fit: naming the model and its tensors)."""
    from aot.deploy.boards import load_board
    from aot.deploy.build import APP_SOURCE, MIN_STACK_BYTES, _link_error, _relink, incbin_source, kernel_opt_groups
    from aot.deploy.firmware import FirmwareError, build_firmware
    from aot.deploy.generate import (EMBED_DIR, EMBED_SOURCES, check_output_folder, input_sets_bytes,
                                     model_defines, resolve_opt, runtime_sources, staged_folder, support_sources)
    from aot.deploy.size import size_json
    from aot.deploy.stack import stack_budget
    from aot.deploy.selftest import bpte_bytes
    from aot.compiler.pipeline import write_outputs
    from aot.paths import KERNELS_DIR
    board = load_board(board)
    out = Path(out_dir).resolve()
    check_output_folder(out, "build.json", "build")
    opt_flag, kernel_flag, opt_defines = resolve_opt(opt, kernel_opt)
    blobs = {m.name: input_sets_bytes(m.compiled.spec, [[t.numpy() for t in m.compiled.example_inputs]])
             for m in models if m.selftest is None}
    with staged_folder(out, "building") as stage:
        gen = stage / "gen"
        gen.mkdir(parents=True)
        w = write_models(models, board, gen, memory, input_sets=blobs)
        sources = [APP_SOURCE] + w["generated"]
        for info in w["models"]:
            name, c = info["name"], info["compiled"]
            if info["selftest"] is None:
                (info["dir"] / "inputs.bin").write_bytes(blobs[name])
                (info["dir"] / "model_inputs.S").write_text(
                    incbin_source(f"mote_model_{name}_inputs", info["dir"] / "inputs.bin", ".mote_model.inputs", 1))
                sources.append(info["dir"] / "model_inputs.S")
            (stage / name).mkdir()
            write_outputs(c, stage / name / "model.pte")
            (stage / name / "mote_model.h").write_text((info["dir"] / "mote_model.h").read_text())
            if info["selftest"] is not None:
                (stage / name / "model.bpte").write_bytes(bpte_bytes(c.pte, info["selftest"]))
        shared_embed = [p for p in EMBED_SOURCES if p != EMBED_MODEL_SOURCE]
        sources += runtime_sources() + shared_embed + support_sources() + w["kernels"]
        defines = {"MOTE_APP_BOARD_NAME": f'"{board.name}"', "NDEBUG": None}
        defines.update(merged_defines([model_defines(i["compiled"], board, opt) for i in w["models"]]))
        defines.update(opt_defines)
        # a model without a method image initialises a runtime state in RAM
        defines["MOTE_RUNTIME_STATE"] = int(any("method_image_bytes" not in i["compiled"].manifest.get("memory", {})
                                                for i in w["models"]))
        defines["MOTE_APP_MODELS"] = None
        if any(i["selftest"] is not None for i in w["models"]):
            defines["MOTE_APP_SELFTEST"] = None
        if verify_checksum:
            defines["MOTE_VERIFY_CHECKSUM"] = None
        includes = [gen, RUNTIME_DIR / "include", EMBED_DIR, KERNELS_DIR]
        layout = {"code_in_sram": board.code_in_sram if code_in_sram is None else bool(code_in_sram),
                  "weights_in_sram": False}
        ram = planned_ram(w["models"], memory)
        # as a one-model build (aot.deploy.build): the smallest stack counted before any link
        check_models_fit(w["models"], board, memory, MIN_STACK_BYTES)
        stack = 16384
        spare = board.ram.size - ram["total"]
        if spare < 2 * stack:
            stack = max(256, spare // 4 // 8 * 8)
        try:
            art = build_firmware(board, sources, include_dirs=includes, defines=defines, out_dir=stage,
                                 stack_bytes=stack, opt=opt_flag, layout=layout, program=multi_program(models),
                                 **kernel_opt_groups(support_sources() + w["kernels"], kernel_flag))
        except FirmwareError as e:
            raise _models_link_error(e, w, board, memory, stack, _link_error) from None
        budget = stack_budget(art)
        if budget.reserve_bytes != stack:
            stack = budget.reserve_bytes
            check_models_fit(w["models"], board, memory, stack)
            try:
                _relink(art, board, stack, layout)
            except FirmwareError as e:
                raise _models_link_error(e, w, board, memory, stack, _link_error) from None
        first = w["models"][0]
        size = size_json(art, first["compiled"], board, first["state"], first["scratch"], stack, budget.main_bytes,
                         w["kernels"], sum(len(b) for b in blobs.values()),
                         sum(i["selftest_bytes"] for i in w["models"]))
        models_size(size, art, w, memory, sources)
        (stage / "size.json").write_text(json.dumps(size, indent=2) + "\n")
        info = {
            "board": board.name, "board_file": str(board.path), "model": ",".join(i["name"] for i in w["models"]),
            "memory": memory, "int8": all(bool(i["compiled"].int8) for i in w["models"]),
            "selftest": None if all(i["selftest"] is None for i in w["models"]) else {
                "cases": sum(i["selftest"].count for i in w["models"] if i["selftest"] is not None)},
            "models": [{"name": i["name"], "source": str(Path(i["path"]).resolve()) if i["path"] else "",
                        "pte": f"{i['name']}/model.pte", "pte_sha256": hashlib.sha256(i["compiled"].pte).hexdigest(),
                        "selftest": None if i["selftest"] is None else {
                            "cases": i["selftest"].count, "bundle": f"{i['name']}/model.bpte"},
                        "input_sets": 1 if i["selftest"] is None else i["selftest"].count,
                        "inputs": i["compiled"].manifest["inputs"], "outputs": i["compiled"].manifest["outputs"]}
                       for i in w["models"]],
            "firmware_sha256": hashlib.sha256(art.elf.read_bytes()).hexdigest(),
            "link": {"stack_bytes": stack, "layout": layout},
        }
        (stage / "build.json").write_text(json.dumps(info, indent=2) + "\n")
    return MultiBuild(out_dir=out, board=board.name, elf=out / "firmware.elf",
                      size=json.loads((out / "size.json").read_text()),
                      info=json.loads((out / "build.json").read_text()))


def _models_link_error(err, w, board, memory: str, stack: int, link_error) -> BuildError:
    """A link failure of several models as one line: the RAM or flash overflow names the
    models' figures (check_models_fit with the stack), else aot.deploy.build's message
    for the model with the largest arena."""
    try:
        check_models_fit(w["models"], board, memory, stack)
    except BuildError as e:
        return e
    worst = max(w["models"], key=lambda i: arena0_bytes(i["compiled"]))
    e = link_error(err, worst["compiled"].spec, board, worst["state"], worst["scratch"], stack)
    return BuildError(f"models {', '.join(i['name'] for i in w['models'])} (--memory {memory}): {e}")


def models_size(size: dict, art, w: dict, memory: str, sources: Sequence) -> None:
    """size.json of several models (in place): "memory", "planned" with every model's
    figures summed (arena: the shared one once), and "models": {name: {"flash": {program,
    method_image, selftest, inputs, embed}, "ram": {arena, mutable, runtime_state, scratch,
    runtime}, "planned": {...}}} read from the ELF symbols (a model's local symbols follow
    its wrapper's STT_FILE entry) and the link map; "shared": the shared arena and scratch."""
    from elftools.elf.elffile import ELFFile
    from aot.deploy.size import _APP_RAM  # the embedding API's static RAM by part (one model's: local symbols)
    local_ram = {k: v for k, v in _APP_RAM.items() if k != "arena"}
    names = [i["name"] for i in w["models"]]
    per = {n: {"flash": {}, "ram": {"arena": 0, "mutable": 0, "runtime_state": 0, "scratch": 0, "runtime": 0}}
           for n in names}
    shared = {"arena": 0, "scratch": 0}
    with open(art.elf, "rb") as f:
        symtab = ELFFile(f).get_section_by_name(".symtab")
        current = None
        for sym in symtab.iter_symbols():
            if sym["st_info"]["type"] == "STT_FILE":
                m = re.fullmatch(r"mote_embed_(\w+)\.c", sym.name)
                current = m.group(1) if m and m.group(1) in per else None
                continue
            size_b = int(sym["st_size"])
            if sym.name == SHARED_ARENA:
                shared["arena"] = size_b
            elif sym.name == SHARED_SCRATCH:
                shared["scratch"] = size_b
            for n in names:
                if sym.name == f"mote_model_{n}_arena0":
                    per[n]["ram"]["arena"] = size_b
                elif sym.name == f"mote_model_{n}_arena1":
                    per[n]["ram"]["mutable"] = size_b
            if current is not None and sym["st_info"]["bind"] == "STB_LOCAL":
                for part, syms in local_ram.items():
                    if sym.name in syms:
                        per[current]["ram"][part] += size_b
    # the objects of each model's sources (build_firmware compiles them in the order given)
    owner = {Path(o).resolve(): i["name"] for s, o in zip(sources, art.objects) for i in w["models"]
             if Path(s).resolve().parent == Path(i["dir"]).resolve()}
    for obj, kinds in art.size_report().get("objects", {}).items():
        n = owner.get(Path(obj).resolve())
        if n is None:
            continue
        base = Path(obj).name
        part = ("program" if base.startswith("model_pte.c") else "method_image" if base.startswith("model_image.c")
                else "selftest" if base.startswith("model_selftest.c") else "inputs"
                if base.startswith(("model_selftest_inputs.c", "model_inputs.S")) else "embed")
        per[n]["flash"][part] = per[n]["flash"].get(part, 0) + int(kinds["text"] + kinds["rodata"] + kinds["data"])
    for i in w["models"]:
        c = i["compiled"]
        per[i["name"]]["planned"] = {"arena": arena0_bytes(c), "mutable": mutable_bytes(c),
                                     "runtime_state": int(i["state"]), "scratch": int(i["scratch"]),
                                     "pte": len(c.pte), "selftest": int(i["selftest_bytes"])}
    ram = planned_ram(w["models"], memory)
    size["memory"] = memory
    size["models"] = per
    size["shared"] = shared
    size["planned"].update({"arena": ram["arena"] + ram["mutable"], "runtime_state": ram["state"],
                            "scratch": ram["scratch"], "pte": sum(len(i["compiled"].pte) for i in w["models"])})
    size["model_constants_bytes"] = sum(int(i["compiled"].manifest.get("memory", {}).get("constants_bytes") or 0)
                                        for i in w["models"])


def models_size_table(size: dict) -> str:
    """Each model's flash and RAM (size.json "models") and the shared memory, as text:
    "pte+selftest B" is the same figure as `aot generate`'s table (the .pte and the self-test's
    cases, planned), "linked B" all the model's objects in the firmware (program, method
    image, self-test, inputs, its embedding code); arena and mutable are the plans (--memory
    shared: one arena, the largest plan, holds every model's)."""
    lines = [f"{'model':<14}{'pte+selftest B':>16}{'linked B':>10}{'arena B':>10}{'mutable B':>11}"
             f"{'state B':>9}{'runtime B':>11}"]
    for n, m in size["models"].items():
        r, p = m["ram"], m["planned"]
        lines.append(f"{n:<14}{p['pte'] + p['selftest']:>16,}{sum(m['flash'].values()):>10,}{p['arena']:>10,}"
                     f"{p['mutable']:>11,}{r['runtime_state']:>9,}{r['runtime']:>11,}")
    lines.append("  pte+selftest: as aot generate's table; linked: the model's objects in the firmware "
                 "(program, method image, self-test, inputs, embedding code)")
    if size.get("memory") == "shared":
        largest_model = max(size["models"], key=lambda n: size["models"][n]["planned"]["arena"])
        lines.append(f"shared by every model (--memory shared): arena {size['shared']['arena']:,} B (the largest "
                     f"plan, {largest_model}'s; each model's plan above runs in it)"
                     + (f", scratch {size['shared']['scratch']:,} B" if size["shared"]["scratch"] else ""))
    return "\n".join(lines)
