"""`aot generate` and `aot build` with several models (or one given as NAME=path.py): the
commands' text and JSON. The work is aot.deploy.multimodel's."""
from __future__ import annotations

import sys
from pathlib import Path

from aot.tools import jsonout


def _compile_all(args, recipe, command: str, selftest_of) -> list:
    """Every MODEL of the command compiled with the one recipe, with its --selftest cases
    (selftest_of(compiled, n, command): aot.tools.commands' one helper)."""
    from aot.compiler.pipeline import compile_model_file
    from aot.deploy.multimodel import ModelBuild
    out = []
    for m in args.models:
        compiled = compile_model_file(m.path, recipe)
        out.append(ModelBuild(m.name, compiled, selftest_of(compiled, recipe.selftest, command), m.path))
    return out


def _default_out(args, board_name: str, suffix: str) -> Path:
    return Path(args.output_dir or Path("build") / ("+".join(m.name for m in args.models) + f"-{board_name}{suffix}"))


def generate_models_command(args, recipe, board, selftest_of) -> int:
    """`aot generate A=a.py B=b.py --board B [--memory shared|separate]`."""
    from aot.deploy.multimodel import generate_models, generated_files, planned_table
    if getattr(args, "dry_run", False):
        import dataclasses
        files = generated_files([m.name for m in args.models], recipe.external_weights is not None,
                                bool(recipe.selftest), args.memory)
        from aot.deploy.generate import generated_headers
        headers = files["headers"] + [h for h in generated_headers(board) if h not in ("model_pte.h", "mote_model.h")]
        info = {"board": board.name, "recipe": dataclasses.asdict(recipe), "memory": args.memory,
                "models": [{"name": m.name, "path": str(Path(m.path).resolve())} for m in args.models],
                "generated_sources": files["sources"], "generated_headers": headers,
                "depends": [str(Path(m.path).resolve()) for m in args.models]}
        if args.json:
            print(jsonout.dumps(info))
        else:
            print(f"aot generate: options checked for {board.name}; would write "
                  + ", ".join(info["generated_sources"] + info["generated_headers"]) + ", mote_sources.json")
        return 0
    models = _compile_all(args, recipe, "generate", selftest_of)
    out = _default_out(args, board.name, "-src")
    gen = generate_models(models, board, out, memory=args.memory, verify_checksum=recipe.verify_checksum,
                          opt=recipe.opt)
    if args.json:
        print(jsonout.dumps(gen.sources))
        return 0
    for m in models:
        print(f"aot generate: {m.name}: {m.compiled.summary()}")
    print(planned_table(gen.sources, board))
    for m in models:
        if m.selftest is not None:
            print(f"self-test: {m.name}: {m.selftest.count} case(s) (mote_model_{m.name}_selftest())")
    print(f"  {out}/mote_sources.json: {len(gen.sources['sources'])} C files to compile, "
          f"include folders {', '.join(gen.sources['include_dirs'])}; "
          f"API: #include \"mote_models.h\" (mote_model_<name>_init, ...)")
    return 0


def build_models_command(args, recipe, target, selftest_of) -> int:
    """`aot build A=a.py B=b.py --board B [--memory shared|separate] [--selftest]`."""
    from aot.deploy.multimodel import build_models
    from aot.deploy.size import size_table
    models = _compile_all(args, recipe, "build", selftest_of)
    out = _default_out(args, target.board.name, "")
    for m in models:
        print(f"aot build: {m.name}: {m.compiled.summary()}")
    art = build_models(models, target.board, out, memory=args.memory, opt=recipe.opt,
                       kernel_opt=recipe.kernel_opt, verify_checksum=recipe.verify_checksum,
                       code_in_sram=recipe.code_in_sram)
    print(size_table(art.size))
    from aot.deploy.multimodel import models_size_table
    print(models_size_table(art.size))
    for p in ("firmware.elf", "firmware.bin", "firmware.uf2", "size.json", "build.json"):
        if (out / p).exists():
            print(f"  {out / p}")
    print(f"  {out}/<model>/: model.pte, ops.json, mote_model.h" + (", model.bpte" if recipe.selftest else ""),
          file=sys.stdout)
    return 0
