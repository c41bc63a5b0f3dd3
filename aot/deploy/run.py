"""`aot run`: run a program on the host runtime or a firmware build on its simulator.

    aot run model.pte --target host --inputs in.npz [--outputs out.npz] [--json]
    aot run build/<model>-<board> --target mps2-an505|mps3-an547
            [--inputs in.npz] [--outputs out.npz] [--json]

    aot run build/<model>-<board> --target serial:PORT --inputs in.npz   (aot.deploy.serial_port)

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
from dataclasses import dataclass
from typing import Optional
import shutil
import subprocess
from pathlib import Path

import numpy as np

from aot import ir
from aot.errors import MoteError, RunError
from aot.host.inputs import conform_inputs
from aot.deploy.protocol import QUIT_LINE, input_line, parse_uart  # noqa: F401 (parse_uart: re-exported)

SIM_TARGETS = ("mps2-an505", "mps3-an547")


# --------------------------------------------------------------------------- firmware runs (protocol: aot.deploy.protocol)


@dataclass
class RunResult:
    outputs: list          # per input set: list of numpy arrays
    cycles: list           # per input set: cycles / instructions
    uart: str
    exit_code: int

    @property
    def stack_used(self):
        """Main stack high-water mark in bytes ("MOTE STACK used=N"), or None."""
        from aot.deploy.protocol import parse_line
        for line in self.uart.splitlines():
            ev = parse_line(line)
            if ev["event"] == "stack":
                used = ev["fields"].get("used")
                return used if type(used) is int and used > 0 else None
        return None


def run_build(out_dir, timeout: float = 300.0, progress=None) -> RunResult:
    """Boot the firmware of build directory `out_dir` on its board's simulator.

    progress: optional callable(done_count) invoked as OUT lines arrive.
    Raises MoteError when the firmware reports an error or does not finish.
    """
    from aot.deploy.qemu import run_firmware_streaming
    out = Path(out_dir)
    info = read_build(out)
    code, text = run_firmware_streaming(out / "firmware.elf", build_board(info), timeout_s=timeout,
                                        on_line=_progress_cb(progress))
    outputs, cycles = parse_uart(text, info["outputs"])
    if code != 0 or len(outputs) != info["input_sets"]:
        raise MoteError(f"firmware exited with status {code} after {len(outputs)} of "
                        f"{info['input_sets']} inferences; UART:\n{text[-2000:]}")
    return RunResult(outputs=outputs, cycles=cycles, uart=text, exit_code=code)


def _progress_cb(progress):
    if progress is None:
        return None
    count = [0]

    def on_line(line: str) -> None:
        if line.startswith("OUT "):
            count[0] += 1
            progress(count[0])
    return on_line


# --------------------------------------------------------------------------- host


def run_host(pte_path, inputs=None, method=None, ptd=None, input_sets=None) -> dict:
    """Run method `method` (name; None: the first) of the .pte at `pte_path`
    with the host runtime (libmote.so); ptd: the .ptd of its external weights.
    inputs: one input set (None: zeros); input_sets: several, run in order on one
    method instance as a firmware runs its embedded sets (embedded_inputs)."""
    from aot.host.runtime import Program, method_sized
    method = method_sized(Program(Path(pte_path), data_map=ptd), method)  # a delegate's pool as it needs
    if input_sets is None:
        input_sets = [inputs if inputs is not None else
                      [np.zeros(info.shape, info.dtype)
                       for info in (method.input_info(i) for i in range(method.num_inputs))]]
    runs = [{"outputs": [np.asarray(o) for o in method.run(list(s))], "instructions": None}
            for s in input_sets]
    return {"target": "host", "program": str(pte_path), "runs": runs}


# --------------------------------------------------------------------------- simulator


def _check_inputs(info: dict, arrays: list, note=None) -> list:
    """``arrays`` made to fit the build's inputs (aot.host.inputs.conform_inputs)."""
    metas = info["inputs"]
    return conform_inputs(arrays, [m["sizes"] for m in metas],
                          [ir.DTYPE_NUMPY[m["dtype"]] for m in metas], note)


def read_json(path: Path, keys=()) -> dict:
    """The JSON object in `path` (a build folder's build.json, size.json) holding `keys`.
    Raises RunError naming the file when it is not one: a folder edited by hand or by
    another tool is refused in one line."""
    try:
        info = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError) as e:
        raise RunError(f"{path} cannot be read ({e}); rebuild the folder with `aot build`") from None
    missing = [k for k in keys if not isinstance(info, dict) or k not in info]
    if missing:
        raise RunError(f"{path} is not a Mote build record (no {', '.join(missing)}); rebuild the folder "
                       "with `aot build`")
    return info


def read_build(build_dir, several: bool = False) -> dict:
    """build.json of `build_dir`, after checking that its files belong together:
    model.pte and firmware.elf must be the ones that build wrote (sha-256), so a
    folder mixing two builds is refused instead of running the wrong firmware.
    several: the caller handles a firmware with several models (aot test, aot flash);
    the others refuse one in one line."""
    import hashlib
    build_dir = Path(build_dir).resolve()
    if not (build_dir / "build.json").exists():
        raise RunError(f"{build_dir} is not a build directory (no build.json); "
                       "for a .pte use --target host")
    info = read_json(build_dir / "build.json", ("board",))
    files = [(info, "pte_sha256", "model.pte"), (info, "firmware_sha256", "firmware.elf")]
    if "models" in info and not several:
        raise RunError(f"{build_dir} is a firmware with several models ({', '.join(m['name'] for m in info['models'])}): "
                       "`aot test` checks each model's self-test; this command reads one model's lines (build "
                       "that model alone for it)")
    if "models" in info:  # several models (aot.deploy.multimodel): each one's program in its folder
        files = [(m, "pte_sha256", m["pte"]) for m in info["models"]] + files[1:]
    if "slot" in info:  # a slot firmware (aot.deploy.slot): no program of its own
        files = files[1:]
    for where, key, name in files:
        path = build_dir / name
        if not path.exists():
            raise RunError(f"{build_dir}: {name} is missing; rebuild with `aot build`")
        if key in where and hashlib.sha256(path.read_bytes()).hexdigest() != where[key]:
            raise RunError(f"{build_dir}: {name} does not match build.json (the folder mixes two "
                           "builds); rebuild with `aot build`")
    return info


def embedded_inputs(build_dir, info: dict) -> Optional[list]:
    """The input sets the firmware of `build_dir` runs, as lists of arrays: gen/inputs.bin
    (aot build's embedded inputs, back to back in build.json's "inputs" order) or, for a
    self-test build, its cases (model.bpte). None when the folder holds neither (a build
    with --uart-inputs)."""
    build_dir = Path(build_dir)
    metas = info.get("inputs") or []
    blob = build_dir / "gen" / "inputs.bin"
    if blob.is_file() and metas:
        data, sets, pos = blob.read_bytes(), [], 0
        for _ in range(int(info.get("input_sets", 1))):
            arrays = []
            for m in metas:
                dt = np.dtype(ir.DTYPE_NUMPY[m["dtype"]])
                n = int(np.prod(m["sizes"], dtype=np.int64)) * dt.itemsize
                if pos + n > len(data):
                    raise RunError(f"{blob} holds fewer input bytes than build.json describes; rebuild")
                arrays.append(np.frombuffer(data[pos:pos + n], dt).reshape(m["sizes"]).copy())
                pos += n
            sets.append(arrays)
        return sets
    if (build_dir / "model.bpte").is_file():
        from aot.deploy.selftest import read_bpte
        return [list(c) for c in read_bpte(build_dir / "model.bpte")[2].inputs]
    return None


def build_board(info: dict):
    """The Board a build was made for (by name, or the board file it was built from)."""
    from aot.deploy.boards import load_board
    path = info.get("board_file")
    if path and Path(path).exists():
        return load_board(path)
    return load_board(info["board"])


def relink_with_inputs(build_dir, input_sets) -> Path:
    """Re-link the firmware of `build_dir` with `input_sets` embedded (list of
    lists of arrays); returns the new ELF (build_dir/run/firmware.elf).
    The same link as `aot build` (aot.deploy.firmware.link_image)."""
    from aot.deploy.build import inputs_source
    from aot.deploy.firmware import CC, link_image
    build_dir = Path(build_dir).resolve()
    info = read_build(build_dir)
    if info.get("selftest"):  # first: a self-test build links no inputs object
        raise RunError(f"{build_dir} was built with --selftest: its firmware checks its own cases "
                       "(`aot test`); build it without --selftest to run other inputs")
    link = info.get("link")
    if not link or not link.get("inputs_object"):
        raise RunError(f"{build_dir}: build.json has no link information; rebuild with `aot build`")
    objects = [build_dir / o for o in link["objects"]]
    missing = [str(o) for o in objects if not o.exists()]
    if missing:
        raise RunError(f"{build_dir}: objects missing ({missing[0]} ...); rebuild with `aot build`")
    board = build_board(info)
    blob = b"".join(a.tobytes() for arrays in input_sets
                    for a in _check_inputs(info, arrays))
    work = build_dir / "run"
    work.mkdir(exist_ok=True)
    (work / "inputs.bin").write_bytes(blob)
    (work / "model_inputs.S").write_text(inputs_source(work / "inputs.bin", len(input_sets)))
    inputs_obj = work / "model_inputs.S.o"
    _run([CC] + board.arch_flags + ["-c", str(work / "model_inputs.S"), "-o", str(inputs_obj)],
         "assembling the inputs")
    objs = [inputs_obj if o == build_dir / link["inputs_object"] else o for o in objects]
    try:
        elf, _, _, _ = link_image(board, objs, work, "firmware", int(link["stack_bytes"]),
                                  layout=link.get("layout"))
    except MoteError as e:
        raise RunError(f"re-linking with the new inputs failed: {e}") from None
    run_info = dict(info, input_sets=len(input_sets))
    (work / "build.json").write_text(json.dumps(run_info, indent=2) + "\n")
    return elf


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
    from aot.deploy.qemu import run_firmware_streaming
    build_dir = Path(build_dir).resolve()
    info = read_build(build_dir)
    board = build_board(info)
    if target != board.name and Path(target).resolve() != board.path.resolve():
        raise RunError(f"{build_dir} was built for {info['board']}, not {target}")
    elf = build_dir / "firmware.elf"
    stdin = None
    expected = info["input_sets"]
    if info.get("uart_inputs"):
        sets = [_check_inputs(info, inputs)] if inputs is not None else []
        if not sets:
            raise RunError("this firmware reads its inputs from the UART: give --inputs")
        stdin = b"".join(input_line(s) for s in sets) + QUIT_LINE
        expected = len(sets)
    elif inputs is not None:
        elf = relink_with_inputs(build_dir, [inputs])
        expected = 1
    code, text = run_firmware_streaming(elf, board, timeout_s=timeout, stdin_bytes=stdin)
    outputs, cycles = parse_uart(text, info["outputs"])
    if code != 0 or len(outputs) != expected:
        raise RunError(f"firmware exited with status {code} after {len(outputs)} of {expected} "
                       f"inferences; UART:\n{text[-2000:]}")
    size = read_json(build_dir / "size.json", ("flash_bytes", "ram_bytes"))
    if elf != build_dir / "firmware.elf":
        from aot.deploy.size import size_report
        rep = size_report(elf, out_dir=elf.parent)
        flash, ram = int(rep["flash_used"]), int(rep["ram_used"])
    else:
        flash, ram = size["flash_bytes"], size["ram_bytes"]
    counter = board.count_unit  # QEMU's icount: instructions; rp2040js's SysTick: core cycles
    return {"target": target, "program": str(build_dir), "elf": str(elf), "counter": counter,
            "runs": [{"outputs": o, counter: c} for o, c in zip(outputs, cycles)],
            "flash_bytes": flash, "ram_bytes": ram, "uart": text}
