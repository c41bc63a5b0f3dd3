"""`aot run`: run a program on the host runtime or a firmware build on its simulator.

    aot run model.pte --target host --inputs in.npz [--outputs out.npz] [--json]
    aot run build/<model>-<board> --target mps2-an505|mps3-an547
            [--inputs in.npz] [--outputs out.npz] [--json]

A build directory's firmware embeds its input sets in flash (`aot build`).
`--inputs` gives other inputs without the model file: the build directory
keeps what is needed to re-link (build.json "link": the compiled objects),
so only the input blob is regenerated (gen/inputs.bin, reassembled
model_inputs.S) and the objects are linked again into DIR/run/firmware.elf;
the build's own firmware is left as it is. A firmware built with
`uart_inputs=True` (MOTE_APP_UART_INPUTS) gets the inputs over UART0 instead
("I <hex>" per inference, "Q" to stop; QEMU's stdin is UART0's receiver).

--json prints one object: target, program, outputs (the first inference's
outputs as nested lists), instructions (of that inference; simulators only),
runs (every inference: outputs + instructions), flash_bytes and ram_bytes
(simulators, from size.json). --outputs writes output_0, output_1, ... of the
first inference (and set<k>_output_<i> for further inferences).
"""
from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import numpy as np

from aot import ir
from aot.errors import MoteError
from aot.runtime import load_npz_inputs

SIM_TARGETS = ("mps2-an505", "mps3-an547")


class RunError(MoteError):
    """The program or build directory cannot be run as asked."""




# --------------------------------------------------------------------------- host


def run_host(pte_path, inputs=None) -> dict:
    """Run method 0 of the .pte at `pte_path` with the host runtime (libmote.so)."""
    from aot.runtime import Program
    method = Program(Path(pte_path)).method()
    if inputs is None:
        inputs = [np.zeros(info.shape, info.dtype)
                  for info in (method.input_info(i) for i in range(method.num_inputs))]
    outs = method.run(inputs)
    return {"target": "host", "program": str(pte_path),
            "runs": [{"outputs": [np.asarray(o) for o in outs], "instructions": None}]}


# --------------------------------------------------------------------------- simulator


def _check_inputs(info: dict, arrays: list) -> list:
    metas = info["inputs"]
    if len(arrays) != len(metas):
        raise RunError(f"{len(arrays)} input arrays given, the program takes {len(metas)}")
    out = []
    for i, (a, m) in enumerate(zip(arrays, metas)):
        a = np.asarray(a)
        if list(a.shape) != list(m["sizes"]):
            raise RunError(f"input {i}: shape {list(a.shape)} != program {m['sizes']}")
        dt = np.dtype(ir.DTYPE_NUMPY[m["dtype"]])
        if a.dtype != dt:
            if a.dtype.kind != dt.kind:
                raise RunError(f"input {i}: dtype {a.dtype} != program {dt}")
            a = a.astype(dt)
        out.append(np.ascontiguousarray(a))
    return out


def relink_with_inputs(build_dir, input_sets) -> Path:
    """Re-link the firmware of `build_dir` with `input_sets` embedded (list of
    lists of arrays); returns the new ELF (build_dir/run/firmware.elf)."""
    from aot.boards import load_board
    from aot.firmware import CC, OBJCOPY, linker_script
    build_dir = Path(build_dir).resolve()
    info = json.loads((build_dir / "build.json").read_text())
    link = info.get("link")
    if not link or not link.get("inputs_object"):
        raise RunError(f"{build_dir}: build.json has no link information; rebuild with `aot build`")
    objects = [Path(o) for o in link["objects"]]
    missing = [str(o) for o in objects if not o.exists()]
    if missing:
        raise RunError(f"{build_dir}: objects missing ({missing[0]} ...); rebuild with `aot build`")
    board = load_board(info["board"])
    blob = b"".join(a.tobytes() for arrays in input_sets
                    for a in _check_inputs(info, arrays))
    work = build_dir / "run"
    work.mkdir(exist_ok=True)
    (work / "inputs.bin").write_bytes(blob)
    src_text = Path(link["inputs_source"]).read_text()
    src_text = src_text.replace(str(Path(link["inputs_source"]).parent / "inputs.bin"),
                                str(work / "inputs.bin"))
    src_text = _replace_count(src_text, len(input_sets))
    (work / "model_inputs.S").write_text(src_text)
    inputs_obj = work / "model_inputs.S.o"
    _run([CC] + board.arch_flags + ["-c", str(work / "model_inputs.S"), "-o", str(inputs_obj)],
         "assembling the inputs")
    objs = [inputs_obj if str(o) == link["inputs_object"] else o for o in objects]
    script = work / "firmware.ld"
    script.write_text(linker_script(board, int(link["stack_bytes"])))
    elf = work / "firmware.elf"
    _run([CC] + board.arch_flags + ["-nostartfiles", "--specs=nano.specs", f"-T{script}",
                                    "-Wl,--gc-sections", f"-Wl,-Map={work / 'firmware.map'}",
                                    "-Wl,--no-warn-rwx-segments", "-o", str(elf)]
         + [str(o) for o in objs] + ["-lc", "-lgcc"], "linking")
    _run([OBJCOPY, "-O", "binary", "-R", ".mote_model", str(elf), str(work / "firmware.bin")],
         "objcopy")
    run_info = dict(info, input_sets=len(input_sets))
    (work / "build.json").write_text(json.dumps(run_info, indent=2) + "\n")
    return elf


def _replace_count(text: str, count: int) -> str:
    lines = text.splitlines()
    for i, ln in enumerate(lines):
        if ln.strip().startswith(".word") and i > 0 and lines[i - 1].strip().endswith("_count:"):
            lines[i] = f"    .word {count}"
            return "\n".join(lines) + "\n"
    raise RunError("model_inputs.S has no input count word")


def _run(cmd, what: str) -> None:
    if shutil.which(cmd[0]) is None:
        raise RunError(f"{cmd[0]} not found")
    proc = subprocess.run([str(c) for c in cmd], capture_output=True, text=True)
    if proc.returncode != 0:
        raise RunError(f"{what} failed: {proc.stderr.strip() or proc.stdout.strip()}")


def run_simulator(build_dir, target: str, inputs=None, timeout: float = 120.0) -> dict:
    """Run the firmware of `build_dir` on `target`'s QEMU machine.

    inputs: None (the embedded input sets) or a list of arrays (one inference).
    """
    from aot.build import parse_uart
    from aot.qemu import run_firmware_streaming
    build_dir = Path(build_dir).resolve()
    if not (build_dir / "build.json").exists():
        raise RunError(f"{build_dir} is not a build directory (no build.json); "
                       "for a .pte use --target host")
    info = json.loads((build_dir / "build.json").read_text())
    if info["board"] != target:
        raise RunError(f"{build_dir} was built for {info['board']}, not {target}")
    elf = build_dir / "firmware.elf"
    stdin = None
    expected = info["input_sets"]
    if info.get("uart_inputs"):
        sets = [_check_inputs(info, inputs)] if inputs is not None else []
        if not sets:
            raise RunError("this firmware reads its inputs from the UART: give --inputs")
        stdin = b"".join(b"I " + b"".join(a.tobytes() for a in s).hex().encode() + b"\n"
                         for s in sets) + b"Q\n"
        expected = len(sets)
    elif inputs is not None:
        elf = relink_with_inputs(build_dir, [inputs])
        expected = 1
    code, text = run_firmware_streaming(elf, info["board"], timeout_s=timeout, stdin_bytes=stdin)
    outputs, cycles = parse_uart(text, info["outputs"])
    if code != 0 or len(outputs) != expected:
        raise RunError(f"firmware exited with status {code} after {len(outputs)} of {expected} "
                       f"inferences; UART:\n{text[-2000:]}")
    size = json.loads((build_dir / "size.json").read_text())
    if elf != build_dir / "firmware.elf":
        from aot.firmware import size_report
        rep = size_report(elf, out_dir=elf.parent)
        flash, ram = int(rep["flash_used"]), int(rep["ram_used"])
    else:
        flash, ram = size["flash_bytes"], size["ram_bytes"]
    return {"target": target, "program": str(build_dir), "elf": str(elf),
            "runs": [{"outputs": o, "instructions": c} for o, c in zip(outputs, cycles)],
            "flash_bytes": flash, "ram_bytes": ram, "uart": text}


# --------------------------------------------------------------------------- command


def _jsonable(result: dict) -> dict:
    runs = [{"outputs": [np.asarray(o).tolist() for o in r["outputs"]],
             "instructions": r["instructions"]} for r in result["runs"]]
    out = {"target": result["target"], "program": result["program"],
           "outputs": runs[0]["outputs"] if runs else [],
           "instructions": runs[0]["instructions"] if runs else None,
           "runs": runs}
    for k in ("flash_bytes", "ram_bytes"):
        if k in result:
            out[k] = result[k]
    return out


def run_command(args) -> int:
    program = Path(args.program)
    inputs = load_npz_inputs(args.inputs) if args.inputs else None
    if args.target == "host":
        pte = program / "model.pte" if program.is_dir() else program
        if not pte.exists():
            raise RunError(f"{pte} not found")
        result = run_host(pte, inputs)
    elif args.target in SIM_TARGETS:
        if not program.is_dir():
            raise RunError(f"--target {args.target} runs a build directory (`aot build ... "
                           f"--board {args.target} -o DIR`), not {program}")
        result = run_simulator(program, args.target, inputs, timeout=args.timeout)
    else:
        raise RunError(f"unknown target {args.target!r} (host, {', '.join(SIM_TARGETS)})")
    if args.outputs:
        arrays = {}
        for k, r in enumerate(result["runs"]):
            for i, o in enumerate(r["outputs"]):
                arrays[f"output_{i}" if k == 0 else f"set{k}_output_{i}"] = np.asarray(o)
        np.savez(args.outputs, **arrays)
    if args.json:
        print(json.dumps(_jsonable(result)))
        return 0
    print(f"aot run: {result['program']} on {result['target']}")
    for k, r in enumerate(result["runs"]):
        head = f"  inference {k}" + (f": {r['instructions']:,} instructions"
                                     if r["instructions"] is not None else "")
        print(head)
        for i, o in enumerate(r["outputs"]):
            a = np.asarray(o)
            flat = a.reshape(-1)
            shown = ", ".join(f"{v:.6g}" if a.dtype.kind == "f" else str(v) for v in flat[:8])
            print(f"    output {i}: {a.dtype} {list(a.shape)} [{shown}{', ...' if flat.size > 8 else ''}]")
    if "flash_bytes" in result:
        print(f"  flash {result['flash_bytes']:,} B, RAM {result['ram_bytes']:,} B")
    if args.outputs:
        print(f"  wrote {args.outputs}")
    return 0
