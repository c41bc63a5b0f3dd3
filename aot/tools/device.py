"""The `aot flash` and `aot monitor` commands: a real board's loop. The work is
in aot.deploy.flash (drive, UF2 checks, tools) and aot.deploy.serial_port
(pyserial); the line protocol in aot.deploy.protocol."""
from __future__ import annotations

import sys
import time
from pathlib import Path

import numpy as np

from aot.errors import SerialPortError
from aot.tools import jsonout


def add_flash_arguments(p) -> None:
    p.add_argument("build_dir", metavar="BUILD_DIR|FILE.uf2",
                   help="build folder of an RP2350/RP2040 board (aot build --board pico2 -o DIR), or a UF2 file "
                        "(aot uf2 ELF --board pico2: the UF2 of an ELF you linked with CMake or PlatformIO)")
    p.add_argument("--drive", metavar="PATH",
                   help="the BOOTSEL drive's folder (default: found by its INFO_UF2.TXT among the mount points)")
    p.add_argument("--model-only", action="store_true",
                   help="write just a model slot: the argument is a model image's UF2 (aot pack MODEL "
                        "--firmware DIR -o NAME.uf2); the firmware in flash stays")
    p.add_argument("--firmware", metavar="BUILD_DIR",
                   help="with --model-only: the slot firmware's build folder, to check the image is for its slot")
    p.add_argument("--tool", choices=("picotool", "pyocd"),
                   help="flash with picotool (USB, BOOTSEL: picotool load -x firmware.uf2) or pyOCD "
                        "(debug probe: pyocd load --target rp2350 firmware.elf) instead of the drive")


def flash_command(args) -> int:
    from aot.deploy.flash import flash_build
    if getattr(args, "model_only", False):
        from aot.deploy.flash import flash_model_only
        r = flash_model_only(args.build_dir, firmware=args.firmware, drive=args.drive, tool=args.tool)
        print(f"aot flash: wrote the model image {r.file.name} to {r.dest or r.method}: {r.bytes:,} bytes, "
              f"{r.blocks} UF2 blocks, family 0x{r.family_id:08x} ({r.chip}, board {r.board}); the firmware "
              "checks it at its next boot")
        return 0
    if getattr(args, "firmware", None):
        from aot.errors import FlashError
        raise FlashError("--firmware names the slot firmware of a model image: add --model-only")
    r = flash_build(args.build_dir, drive=args.drive, tool=args.tool)
    if r.method == "drive":
        print(f"aot flash: wrote {r.file.name} to {r.dest}: {r.bytes:,} bytes, {r.blocks} UF2 blocks, "
              f"family 0x{r.family_id:08x} ({r.chip}, board {r.board}); the board reboots into it")
    else:
        print(f"aot flash: {r.method} loaded {r.file} ({r.bytes:,} bytes) onto the {r.chip} "
              f"(board {r.board})")
    return 0


def add_uf2_arguments(p) -> None:
    p.add_argument("elf", metavar="ELF", help="a firmware ELF linked for the board (cmake/mote.cmake's app.elf, "
                                              "PlatformIO's program.elf, aot build's firmware.elf)")
    p.add_argument("--board", required=True, help="the board it is linked for: pico (RP2040) or pico2 (RP2350), "
                                                  "or another board of boards/ with a UF2 family")
    p.add_argument("-o", "--output", metavar="OUT.uf2", help="where to write it (default: ELF's name with .uf2)")


def uf2_command(args) -> int:
    """`aot uf2 ELF --board B [-o OUT.uf2]`: the UF2 of ELF's flash image for the board's
    BOOTSEL drive, made as `aot build` makes firmware.uf2 (aot.deploy.firmware.uf2_from_elf)."""
    from aot.deploy.boards import load_board
    from aot.deploy.firmware import uf2_from_elf
    from aot.deploy.uf2 import FAMILY_CHIPS, UF2_BLOCK_SIZE, UF2_PAYLOAD
    board = load_board(args.board)
    uf2 = uf2_from_elf(board, args.elf)
    out = Path(args.output) if args.output else Path(args.elf).with_suffix(".uf2")
    out.write_bytes(uf2)
    blocks = len(uf2) // UF2_BLOCK_SIZE
    print(f"aot uf2: wrote {out}: {blocks} UF2 blocks ({blocks * UF2_PAYLOAD:,} bytes of flash from "
          f"0x{board.flash.origin:08x}), family 0x{board.uf2_family_id:08x} "
          f"({FAMILY_CHIPS.get(board.uf2_family_id, 'board ' + board.name)}); flash it with "
          f"`aot flash {out}` or copy it to the board's BOOTSEL drive")
    return 0


def add_monitor_arguments(p) -> None:
    p.add_argument("port", help="serial device (/dev/ttyACM0, COM3, ...) or pyserial URL "
                                "(socket://127.0.0.1:4321, loop://)")
    p.add_argument("--baud", type=int, default=115200, help="baud rate, 8N1 (default 115200)")
    p.add_argument("--build", metavar="DIR",
                   help="the build folder the board runs: OUT lines are decoded into its outputs' "
                        "dtypes and shapes (without it they are shown as hex bytes)")
    fmt = p.add_mutually_exclusive_group()
    fmt.add_argument("--json", action="store_true", help="one JSON object per decoded line (JSON lines)")
    fmt.add_argument("--raw", action="store_true", help="print the lines as they arrive")
    p.add_argument("--timeout", type=float, metavar="S",
                   help="stop after S seconds (default: run until Ctrl-C or the port closes)")


def format_array(a) -> str:
    """One line for an output tensor: dtype, shape and its first values."""
    a = np.asarray(a)
    flat = a.reshape(-1)
    shown = ", ".join(f"{v:.6g}" if a.dtype.kind == "f" else str(v) for v in flat[:8])
    return f"{a.dtype} {list(a.shape)} [{shown}{', ...' if flat.size > 8 else ''}]"


def _counter_for(board_name: str):
    from aot.errors import MoteError
    from aot.deploy.boards import known_boards, load_board
    from aot.deploy.serial_port import count_name
    # the name came over the wire: look up only a board of boards/ (never a path
    # or a 300-character file name)
    if board_name not in known_boards():
        return None
    try:
        return count_name(load_board(board_name))
    except MoteError:
        return None


def event_json(ev: dict, counter) -> dict:
    """`ev` (aot.deploy.protocol.parse_line) with arrays as nested lists."""
    out = {k: v for k, v in ev.items() if k != "outputs"}
    if ev["event"] == "out":
        out["counter"] = counter
        if "outputs" in ev:
            out["outputs"] = [np.asarray(o).tolist() for o in ev["outputs"]]
            out["dtypes"] = [str(np.asarray(o).dtype) for o in ev["outputs"]]
            out["shapes"] = [list(np.asarray(o).shape) for o in ev["outputs"]]
    return out


def event_text(ev: dict, counter) -> list:
    """Human-readable lines for one event."""
    kind = ev["event"]
    if kind == "boot":
        return [f"boot: board {ev['board']}"]
    if kind == "model":
        return ["model: " + ", ".join(f"{k} {v:,} B" if isinstance(v, int) else f"{k} {v}"
                                      for k, v in ev.items() if k not in ("event", "line"))]
    if kind == "ready":
        return ["ready: waiting for inputs (aot run DIR --target serial:PORT --inputs IN.npz)"]
    if kind == "out":
        lines = [f"inference {ev['index']}: {ev['count']:,} {counter or 'cycles or instructions'}"]
        if "outputs" in ev:
            lines += [f"    output {i}: {format_array(o)}" for i, o in enumerate(ev["outputs"])]
        else:
            if "note" in ev:
                lines.append(f"    ({ev['note']}; shown as hex)")
            lines += [f"    output {i}: {len(h) // 2} bytes {h[:64]}{'...' if len(h) > 64 else ''}"
                      for i, h in enumerate(ev["outputs_hex"])]
        return lines
    if kind == "done":
        return [f"done: {ev.get('count', '?')} inferences"]
    if kind == "error":
        return [f"error: the firmware stopped at {ev['stage']} with code {ev['code']}"]
    if kind == "selftest":
        return [f"selftest: {ev['line'][len('MOTE SELFTEST '):]}"]
    if kind == "text":
        return [ev["line"]]
    rest = ev["line"].split(" ", 2)[2:]  # after "MOTE <WORD>"
    return [f"{kind}: {rest[0]}" if rest else kind]


def monitor_command(args) -> int:
    from aot.deploy.protocol import parse_line
    from aot.deploy.serial_port import open_port, read_lines
    metas, counter = None, None
    if args.build:
        from aot.deploy.run import build_board, read_build
        info = read_build(Path(args.build))
        metas = info["outputs"]
        from aot.deploy.serial_port import count_name
        counter = count_name(build_board(info))
    if args.timeout is not None and not args.timeout > 0:
        print("aot monitor: error: --timeout must be more than 0 seconds", file=sys.stderr)
        return 2
    try:
        ser = open_port(args.port, args.baud)
    except SerialPortError as e:
        print(f"aot monitor: error: {e}", file=sys.stderr)
        return 2
    deadline = None if args.timeout is None else time.monotonic() + args.timeout
    # Ctrl-C ends the monitor even when it was started with SIGINT ignored (a
    # background job of a non-interactive shell inherits SIG_IGN, and Python
    # then installs no KeyboardInterrupt handler).
    import signal
    signal.signal(signal.SIGINT, signal.default_int_handler)
    if not args.json:
        print(f"aot monitor: {args.port} at {args.baud} baud 8N1 (Ctrl-C ends)", file=sys.stderr)
    try:
        for line in read_lines(ser, deadline):
            if args.raw:
                print(line, flush=True)
                continue
            ev = parse_line(line, metas)
            if ev["event"] == "boot" and not args.build:
                counter = _counter_for(ev["board"])
            if args.json:
                print(jsonout.dumps(event_json(ev, counter)), flush=True)
            else:
                for text in event_text(ev, counter):
                    print(text, flush=True)
    except SerialPortError as e:
        print(f"aot monitor: {e}", file=sys.stderr)
    except KeyboardInterrupt:
        pass
    finally:
        ser.close()
    return 0
