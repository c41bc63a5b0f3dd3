"""`aot test`: run a build's self-test, or a .bpte's cases, and print the table.

    aot test BUILD_DIR --target host            the cases of BUILD_DIR/model.bpte on libmote.so
    aot test BUILD_DIR --target mps2-an505      the firmware in QEMU; its SELFTEST lines
    aot test BUILD_DIR --target serial:PORT     the lines of the board running BUILD_DIR (reset it)
    aot test model.bpte [--target host]         any BundledProgram (Mote's or ExecuTorch's)

Exit status 0 only on PASS (1 on FAIL or when no verdict arrives, 2 bad usage).
The cases, their tolerance and the host run: aot.deploy.selftest; the lines:
aot.deploy.protocol.read_selftest.
"""
from __future__ import annotations

import math
import time
from pathlib import Path

from aot.errors import ProtocolError, RunError, SerialPortError
from aot.deploy.selftest import DEFAULT_CASES, read_bpte, run_host  # noqa: F401 (DEFAULT_CASES: the CLI's)
from aot.tools import jsonout


def run_selftest(program, target: str = "host", timeout: float = 120.0) -> dict:
    """The self-test report (aot.deploy.protocol.read_selftest's shape) of
    `program` (a --selftest build directory or a .bpte) on `target`, with
    "target" and "program" added."""
    path = Path(program)
    if not path.exists():
        raise RunError(f"{path}: no such file or directory")
    if not path.is_dir():
        if target != "host":
            raise RunError(f"a .bpte runs on the host (--target host); for {target} give a build "
                           "directory made with `aot build ... --selftest`")
        pte, method, st = read_bpte(path)
        rep = run_host(pte, st, method, source=str(path))
    else:
        from aot.deploy.run import read_build
        info = read_build(path, several=True)
        if "models" in info:  # several models in one firmware: a verdict per model
            return dict(_run_models(path, info, target, timeout), target=target, program=str(path))
        if not info.get("selftest"):
            raise RunError(f"{path} was built without --selftest; rebuild it with "
                           f"`aot build MODEL --board {info['board']} --selftest`")
        if target == "host":
            bundle = path / info["selftest"].get("bundle", "model.bpte")
            pte, method, st = read_bpte(bundle)
            rep = run_host(pte, st, method, source=str(bundle))
        elif target.startswith("serial:"):
            rep = _run_serial(path, info, target[len("serial:"):], timeout)
        else:
            rep = _run_simulator(path, info, target, timeout)
    return dict(rep, target=target, program=str(path))


def _run_models(path: Path, info: dict, target: str, timeout: float) -> dict:
    """The self-test of a build with several models: {"verdict" (PASS when every model
    passes), "n", "max_abs_err", "models": {name: read_selftest's report}}."""
    from aot.deploy.protocol import parse_line, read_models_selftest
    if not info.get("selftest"):
        raise RunError(f"{path} was built without --selftest; rebuild it with "
                       f"`aot build {' '.join(m['name'] + '=...' for m in info['models'])} --board {info['board']} "
                       "--selftest`")
    if target == "host":
        reps = {}
        for m in info["models"]:
            bundle = path / m["selftest"]["bundle"]
            pte, method, st = read_bpte(bundle)
            reps[m["name"]] = run_host(pte, st, method, source=str(bundle))
    elif target.startswith("serial:"):
        sizes = {m["name"]: (path / m["pte"]).stat().st_size for m in info["models"]}

        def check(line: str) -> None:
            ev = parse_line(line)
            name = str(ev.get("name", ""))
            if ev["event"] == "model" and (name not in sizes or ev.get("pte") != sizes[name]):
                raise RunError(f"the board runs another firmware ({line.strip()}; {path.name} has "
                               f"{', '.join(f'{n} pte={b}' for n, b in sizes.items())}): flash {path.name} first")
        reps = _serial_lines(path, info, target[len("serial:"):], timeout,
                             lambda lines: read_models_selftest(lines, on_line=check))
    else:
        code, text = _simulate(path, info, target, timeout)
        try:
            reps = read_models_selftest(text.splitlines())
        except ProtocolError as e:
            raise RunError(f"the firmware exited with status {code} without every verdict ({e})") from None
    missing = [m["name"] for m in info["models"] if m["name"] not in reps]
    if missing:
        raise RunError(f"no self-test verdict for model(s) {', '.join(missing)}")
    errs = [r["max_abs_err"] for r in reps.values()]
    return {"verdict": "PASS" if all(r["verdict"] == "PASS" for r in reps.values()) else "FAIL",
            "n": sum(r["n"] for r in reps.values()), "max_abs_err": max(errs) if errs else 0.0,
            "rows": [], "fail": None, "models": reps}


def _simulate(path: Path, info: dict, target: str, timeout: float) -> tuple:
    """(exit status, UART text) of the build's firmware on the simulated board `target`."""
    from aot.deploy.qemu import run_firmware_streaming
    from aot.deploy.run import build_board
    from aot.deploy.target import run_target
    board = run_target(target, serial=False).board
    if board is None or board.simulator is None:
        raise RunError(f"board {board.name if board else target} has no simulator; run the self-test on the "
                       f"board with --target serial:PORT")
    built = build_board(info)
    if board.name != built.name:
        raise RunError(f"{path} was built for {built.name}, not {board.name}")
    return run_firmware_streaming(path / "firmware.elf", built, timeout_s=timeout)


def _serial_lines(path: Path, info: dict, port: str, timeout: float, read):
    """read(lines) over the lines of the board running the build at serial PORT."""
    from aot.deploy.serial_port import open_port, read_lines
    from aot.deploy.run import build_board
    if not port:
        raise RunError("--target serial:PORT needs a port (serial:/dev/ttyACM0, serial:COM3, "
                       "serial:socket://127.0.0.1:4321)")
    board = build_board(info)
    ser = open_port(port, board.uart.baud)
    try:
        return read(read_lines(ser, time.monotonic() + timeout))
    except ProtocolError as e:
        raise RunError(f"no self-test verdict from {port} within {timeout:g} s (reset the board "
                       f"running {path.name}): {e}") from None
    except SerialPortError as e:
        raise RunError(str(e)) from None
    finally:
        ser.close()


def _run_simulator(path: Path, info: dict, target: str, timeout: float) -> dict:
    code, text = _simulate(path, info, target, timeout)
    from aot.deploy.protocol import read_selftest
    try:
        return read_selftest(text.splitlines())
    except ProtocolError as e:
        raise RunError(f"the firmware exited with status {code} without a verdict ({e})") from None


def _run_serial(path: Path, info: dict, port: str, timeout: float) -> dict:
    from aot.deploy.protocol import parse_line, read_selftest
    from aot.deploy.serial_port import open_port, read_lines
    from aot.deploy.run import build_board
    if not port:
        raise RunError("--target serial:PORT needs a port (serial:/dev/ttyACM0, serial:COM3, "
                       "serial:socket://127.0.0.1:4321)")
    board = build_board(info)
    pte_bytes = (path / "model.pte").stat().st_size

    def check(line: str) -> None:
        ev = parse_line(line)
        if ev["event"] == "model" and ev.get("pte") not in (None, pte_bytes):
            raise RunError(f"the board runs another model (pte={ev['pte']} bytes, {path.name}/model.pte "
                           f"has {pte_bytes}): flash {path.name} first (aot flash)")

    ser = open_port(port, board.uart.baud)
    try:
        return read_selftest(read_lines(ser, time.monotonic() + timeout), on_line=check)
    except ProtocolError as e:
        raise RunError(f"no self-test verdict from {port} within {timeout:g} s (reset the board "
                       f"running {path.name}): {e}") from None
    except SerialPortError as e:
        raise RunError(str(e)) from None
    finally:
        ser.close()


def _num(x: float) -> str:
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "nan"
    return "0" if x == 0 else f"{x:.3g}"


def format_report(rep: dict) -> str:
    """The table of cases and the verdict line (several models: one table and verdict per
    model, then the firmware's)."""
    if "models" in rep:
        lines = []
        for name, r in rep["models"].items():
            lines += [f"model {name}:"] + format_report(dict(r, program=rep["program"], target=rep["target"])
                                                        ).splitlines()[1:]
        bad = [n for n, r in rep["models"].items() if r["verdict"] != "PASS"]
        return "\n".join([f"aot test: {rep['program']} on {rep['target']}"] + lines + [
            f"{rep['verdict']}: {len(rep['models'])} models, {rep['n']} case(s)"
            + (f"; failed: {', '.join(bad)}" if bad else "")])
    lines = [f"aot test: {rep['program']} on {rep['target']}",
             f"  {'case':>4}  {'output':>6}  {'max abs err':>12}  {'tolerance':>10}  verdict"]
    for r in rep["rows"]:
        tol = "exact" if r["tol"] == 0 else _num(r["tol"])
        lines.append(f"  {r['case']:>4}  {r['output']:>6}  {_num(r['max_abs_err']):>12}  {tol:>10}  "
                     f"{r['verdict']}")
    head = f"{rep['verdict']}: {rep['n']} case(s), max abs err {_num(rep['max_abs_err'])}"
    if rep.get("fail"):
        f = rep["fail"]
        head += (f"; first failure: case {f.get('case')} output {f.get('output')} element "
                 f"{f.get('element')}: got {f.get('got')}, want {f.get('want')} (tolerance "
                 f"{_num(f.get('tol'))})")
    lines.append(head)
    return "\n".join(lines)


def test_command(args) -> int:
    rep = run_selftest(args.program, args.target, args.timeout)
    if args.json:
        print(jsonout.dumps(rep))
    else:
        print(format_report(rep))
    return 0 if rep["verdict"] == "PASS" else 1
