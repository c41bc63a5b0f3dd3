"""Mote's PlatformIO integration, the parts that need no SCons.

Used by extra_script.py (the library's build.extraScript, run by PlatformIO's
SCons) and by the local platform's upload target (platform/builder/main.py),
and importable by plain pytest. Nothing here imports torch or SCons.

* ``read_options``: the ``custom_mote_*`` options of an environment
  (``custom_mote_model`` one model file, or several: ``[name=]path`` a line or
  comma separated, generated together by one ``aot generate``).
* ``mote_board_for``: which Mote board a PlatformIO board is (the one mapping
  from PlatformIO's ``build.mcu`` to ``boards/<name>.json``).
* ``cache_key``: the content hash of everything ``aot generate`` reads.
* ``find_python``: a Python that can run ``aot``, or how to install it.
* ``platform_boards``: the board manifests of the local platform
  (platform/boards/*.json), generated from Mote's boards/*.json.
"""
from __future__ import annotations

import hashlib
import json
import os
import shlex
import shutil
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Optional, Sequence

#: The Mote checkout this file belongs to (integrations/platformio/mote_pio.py).
MOTE_ROOT = Path(__file__).resolve().parents[2]

#: PlatformIO ``build.mcu`` -> Mote board (boards/<name>.json). The boards of
#: Mote's local platform (integrations/platformio/platform/boards) use the Mote board
#: name as their mcu, so any mcu that names a Mote board maps to itself; the
#: table holds the boards of other platforms.
MCU_TO_BOARD = {
    "rp2350": "pico2",           # raspberrypi / community: rpipico2 (Pico 2)
    "rp2040": "pico",            # rpipico (Pico), Cortex-M0+
    "stm32f446ret6": "nucleo-f446re",
    "nrf51822": "microbit",      # bbcmicrobit
}

#: Option names read from platformio.ini (each as custom_mote_<name>).
OPTIONS = ("model", "int8", "board", "calib", "selftest", "port", "python", "options", "memory")

TRUE_WORDS = ("1", "yes", "true", "on", "y")
FALSE_WORDS = ("0", "no", "false", "off", "n", "")

#: What the extraScript prints when the cache is valid (tests look for it).
UP_TO_DATE = "mote: generated sources up to date (hash {key})"

#: Default number of self-test cases (aot build/generate --selftest).
DEFAULT_SELFTEST_CASES = 4


class MoteOptionError(ValueError):
    """A custom_mote_* option is missing or has a bad value."""


class MoteSetupError(RuntimeError):
    """aot cannot be found or run; the message says how to fix it."""


def known_boards(root: Path = MOTE_ROOT) -> list[str]:
    return sorted(p.stem for p in (root / "boards").glob("*.json"))


def mote_board_for(mcu: Optional[str], explicit: Optional[str] = None,
                   boards: Optional[Sequence[str]] = None) -> str:
    """The Mote board for an environment: ``custom_mote_board`` when given,
    else from the PlatformIO board's ``build.mcu``. Raises MoteOptionError."""
    boards = list(boards) if boards is not None else known_boards()
    if explicit:
        name = explicit.strip()
        if name not in boards and not name.endswith(".json"):
            raise MoteOptionError(f"custom_mote_board = {name}: no such Mote board "
                                  f"(boards/*.json: {', '.join(boards)})")
        return name
    key = (mcu or "").strip().lower()
    if key in boards:
        return key
    if key in MCU_TO_BOARD:
        return MCU_TO_BOARD[key]
    raise MoteOptionError(f"no Mote board for the PlatformIO board's mcu {mcu!r}: "
                          f"set custom_mote_board to one of {', '.join(boards)}")


def parse_bool(value, option: str) -> bool:
    if isinstance(value, bool):
        return value
    v = str(value if value is not None else "").strip().lower()
    if v in TRUE_WORDS:
        return True
    if v in FALSE_WORDS:
        return False
    raise MoteOptionError(f"custom_mote_{option} = {value}: expected yes or no")


def parse_selftest(value) -> int:
    """custom_mote_selftest: no/empty -> 0, yes -> 4 cases, N -> N cases."""
    v = str(value if value is not None else "").strip().lower()
    if v in FALSE_WORDS:
        return 0
    if v in TRUE_WORDS[1:]:  # "1" means one case, not "yes"
        return DEFAULT_SELFTEST_CASES
    try:
        n = int(v)
    except ValueError:
        raise MoteOptionError(f"custom_mote_selftest = {value}: expected yes, no or a "
                              f"number of cases") from None
    if n < 0:
        raise MoteOptionError(f"custom_mote_selftest = {value}: must not be negative")
    return n


@dataclass(frozen=True)
class ModelEntry:
    """One entry of custom_mote_model: the file and its NAME (None: `path.py` alone,
    aot names it after the file's stem)."""
    path: Path
    name: Optional[str] = None

    def arg(self) -> str:
        """aot generate's MODEL argument: `path` or `NAME=path`."""
        return str(self.path) if self.name is None else f"{self.name}={self.path}"


def split_models(raw: str) -> list[str]:
    """custom_mote_model's entries: one a line or comma separated, blanks dropped."""
    return [e.strip() for line in str(raw).splitlines() for e in line.split(",") if e.strip()]


@dataclass
class MoteOptions:
    model: Path                # the first model file (the only one of a one-model build)
    board: str
    int8: bool = False
    calib: Optional[Path] = None
    selftest: int = 0          # number of cases; 0 = no self-test
    port: Optional[bool] = None  # None: automatic (Mote's local platform)
    python: Optional[str] = None
    #: custom_mote_options: any other `aot generate` options, as the command line spells them
    options: list = field(default_factory=list)
    #: every entry of custom_mote_model (default: `model` alone, without a name)
    models: list = field(default_factory=list)
    #: custom_mote_memory: shared or separate (several models; None: aot's default)
    memory: Optional[str] = None

    def model_entries(self) -> list:
        return list(self.models) or [ModelEntry(self.model)]

    def generate_args(self, out_dir: Path) -> list[str]:
        """The arguments of `aot generate` for these options (custom_mote_options after the
        specific ones; aot parses them all into one Recipe and checks them). Several models
        (or a NAME) are one command: `aot generate kws=kws.py image=image.py ... --memory M`."""
        args = ["generate"] + [m.arg() for m in self.model_entries()] + ["--board", self.board]
        if self.int8:
            args.append("--int8")
        if self.calib is not None:
            args += ["--calib", str(self.calib)]
        if self.selftest:
            args += ["--selftest", str(self.selftest)]
        if self.memory:
            args += ["--memory", self.memory]
        args += list(self.options)
        args += ["-o", str(out_dir)]
        return args


def read_options(get: Callable[[str], Optional[str]], project_dir, mcu: Optional[str],
                 boards: Optional[Sequence[str]] = None) -> MoteOptions:
    """Read the custom_mote_* options. `get(name)` returns the raw value of
    ``custom_mote_<name>`` or None; relative paths are relative to the project."""
    project_dir = Path(project_dir)

    def resolve(name: str, raw: str) -> Path:
        p = Path(os.path.expanduser(raw.strip()))
        if not p.is_absolute():
            p = project_dir / p
        p = p.resolve()
        if not p.is_file():
            raise MoteOptionError(f"custom_mote_{name} = {raw.strip()}: file not found ({p})")
        return p

    def not_set(name: str) -> MoteOptionError:
        return MoteOptionError(f"custom_mote_{name} is not set: add `custom_mote_{name} = path/to/model.py` "
                               f"to the environment in platformio.ini")

    def path_of(name: str, required: bool) -> Optional[Path]:
        raw = get(name)
        if raw is None or not str(raw).strip():
            if required:
                raise not_set(name)
            return None
        return resolve(name, str(raw))

    models = []
    for entry in split_models(get("model") or ""):
        name, sep, path = entry.partition("=")
        if sep and not (project_dir / os.path.expanduser(entry)).is_file():  # NAME=path (aot checks NAME)
            models.append(ModelEntry(resolve("model", path), name.strip()))
        else:
            models.append(ModelEntry(resolve("model", entry)))
    if not models:
        raise not_set("model")
    calib = path_of("calib", required=False)
    board = mote_board_for(mcu, get("board"), boards)
    port_raw = get("port")
    port = None if port_raw is None or not str(port_raw).strip() else parse_bool(port_raw, "port")
    python = (get("python") or "").strip() or None
    try:
        options = shlex.split(get("options") or "")
    except ValueError as e:
        raise MoteOptionError(f"custom_mote_options = {get('options')}: {e}") from None
    memory = (get("memory") or "").strip() or None
    several = len(models) > 1 or models[0].name is not None
    if memory and not several:
        raise MoteOptionError(f"custom_mote_memory = {memory}: it chooses how several models share RAM; "
                              "custom_mote_model names one (give two, or name it: name=path.py)")
    return MoteOptions(model=models[0].path, board=board, int8=parse_bool(get("int8"), "int8"),
                       calib=calib, selftest=parse_selftest(get("selftest")), port=port,
                       python=python, options=options, models=models if several else [], memory=memory)


# --------------------------------------------------------------------------- cache key


def _hash_file(h, path: Path, label: str) -> None:
    data = path.read_bytes()
    h.update(f"{label}\0{len(data)}\0".encode())
    h.update(data)


def compiler_files(root: Path = MOTE_ROOT) -> list[Path]:
    """The files of Mote whose change can change what `aot generate` writes:
    the compiler (aot/**/*.py) and the board files. C sources are not here:
    the build compiles them from the checkout and tracks them itself."""
    files = sorted((root / "aot").rglob("*.py")) + sorted((root / "boards").glob("*.json"))
    return [f for f in files if "__pycache__" not in f.parts]


def model_files(model) -> list[Path]:
    """The model file and the other .py files beside it (what it may import); for several
    model files (a list), each one's, every file once."""
    if isinstance(model, (list, tuple)):
        out: list = []
        for m in model:
            out += [f for f in model_files(m) if f not in out]
        return out
    siblings = sorted(p for p in model.parent.glob("*.py") if p != model)
    return [model] + siblings


def cache_key(opts: MoteOptions, root: Path = MOTE_ROOT, extra: Sequence[str] = ()) -> str:
    """sha256 over the generate arguments (without the output folder), the
    contents of the model file (and its .py siblings), the calibration file,
    Mote's compiler sources and, when it is set, SOURCE_DATE_EPOCH (the build
    date of a pico/pico2 image's binary info: aot.deploy.binary_info.build_date).
    Same inputs, same key; any change, another key."""
    h = hashlib.sha256()
    args = opts.generate_args(Path("OUT"))
    h.update(json.dumps(args[:-2] + list(extra)).encode())
    epoch = os.environ.get("SOURCE_DATE_EPOCH")
    if epoch is not None:  # unset: the keys of earlier builds stay valid
        h.update(f"SOURCE_DATE_EPOCH\0{epoch}\0".encode())
    for i, f in enumerate(model_files([m.path for m in opts.model_entries()])):
        _hash_file(h, f, f"model{i}:{f.name}")
    if opts.calib is not None:
        _hash_file(h, opts.calib, "calib")
    for f in compiler_files(root):
        _hash_file(h, f, f"mote:{f.relative_to(root).as_posix()}")
    return h.hexdigest()


# --------------------------------------------------------------------------- finding aot


def _has_aot(python: str) -> bool:
    try:
        proc = subprocess.run([python, "-c", "import aot.cli, aot.paths; print(aot.paths.ROOT)"],
                              capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired):
        return False
    return proc.returncode == 0


def _script_python(script: str) -> Optional[str]:
    """The interpreter named in a console script's #! line."""
    try:
        with open(script, "rb") as fp:
            first = fp.readline().decode(errors="replace").strip()
    except OSError:
        return None
    if not first.startswith("#!"):
        return None
    cmd = first[2:].strip().split()
    if not cmd:
        return None
    if os.path.basename(cmd[0]) == "env" and len(cmd) > 1:
        return shutil.which(cmd[1])
    return cmd[0]


def python_candidates(explicit: Optional[str], pio_python: Optional[str],
                      root: Path = MOTE_ROOT) -> list[tuple[str, str]]:
    """(python, where it came from) in the order they are tried."""
    cands = []
    if explicit:
        cands.append((explicit, "custom_mote_python"))
    if os.environ.get("MOTE_PYTHON"):
        cands.append((os.environ["MOTE_PYTHON"], "MOTE_PYTHON"))
    if pio_python:
        cands.append((pio_python, "the Python that runs PlatformIO"))
    aot = shutil.which("aot")
    if aot:
        py = _script_python(aot)
        if py:
            cands.append((py, f"the aot on PATH ({aot})"))
    venv = root / ".venv" / "bin" / "python"
    if venv.exists():
        cands.append((str(venv), f"the Mote checkout's .venv ({venv})"))
    return cands


def find_python(explicit: Optional[str], pio_python: Optional[str],
                root: Path = MOTE_ROOT) -> tuple[str, str]:
    """A Python that imports `aot`: (path, where it came from). With an
    explicit one (custom_mote_python / MOTE_PYTHON) that lacks aot, that is an
    error rather than a silent fallback."""
    tried = []
    for py, where in python_candidates(explicit, pio_python, root):
        if _has_aot(py):
            return py, where
        tried.append(f"{py} ({where})")
        if where in ("custom_mote_python", "MOTE_PYTHON"):
            break
    raise MoteSetupError(
        "cannot find Mote's `aot` compiler (tried: " + "; ".join(tried or ["nothing"]) + ").\n"
        f"Install it into the Python that runs PlatformIO:\n"
        f"    {pio_python or 'python3'} -m pip install torch==2.13.0 -e {root}\n"
        "(torch pinned: another version pulls a multi-GB CUDA build), or point the build at a\n"
        "Python that has it, in platformio.ini (or remove a custom_mote_python that names one\n"
        "without it):\n"
        "    custom_mote_python = /path/to/venv/bin/python")


def aot_command(python: str) -> list[str]:
    """The `aot` command run by `python` (`python -m aot`: no console script needed)."""
    return [python, "-m", "aot"]


# --------------------------------------------------------------------------- generated sources


@dataclass
class MoteSources:
    """mote_sources.json of an `aot generate` folder, paths as Path."""
    board: str
    sources: list[Path]
    kernel_sources: list[Path]
    include_dirs: list[Path]
    defines: dict
    cflags: list[str]
    arch_flags: list[str]
    port: dict = field(default_factory=dict)
    raw: dict = field(default_factory=dict)

    @property
    def root(self) -> Optional[Path]:
        """The Mote checkout the sources come from (the aot that generated
        them): the folder holding the runtime/include on the include path."""
        for d in self.include_dirs:
            if d.name == "include" and d.parent.name == "runtime":
                return d.parent.parent
        return None

    @classmethod
    def load(cls, path: Path) -> "MoteSources":
        d = json.loads(Path(path).read_text())
        return cls(board=d.get("board", ""), sources=[Path(p) for p in d.get("sources", [])],
                   kernel_sources=[Path(p) for p in d.get("kernel_sources", [])],
                   include_dirs=[Path(p) for p in d.get("include_dirs", [])],
                   defines=dict(d.get("defines", {})), cflags=list(d.get("cflags", [])),
                   arch_flags=list(d.get("arch_flags", [])), port=dict(d.get("port") or {}), raw=d)


def group_by_dir(paths: Sequence[Path]) -> dict[Path, list[str]]:
    """{folder: [file names]} in first-seen order (one BuildSources per folder)."""
    out: dict[Path, list[str]] = {}
    for p in paths:
        out.setdefault(Path(p).parent, []).append(Path(p).name)
    return out


def cppdefines(defines: dict) -> list:
    """mote_sources.json defines ({name: value or null}) as SCons CPPDEFINES."""
    return [k if v is None else (k, v) for k, v in defines.items()]


def libs_of(flags: Sequence[str]) -> list[str]:
    """["-lm", "-lc"] -> ["m", "c"] (SCons LIBS)."""
    return [f[2:] if f.startswith("-l") else f for f in flags]


# --------------------------------------------------------------------------- the local platform's boards

QEMU_VENDOR = "Arm (simulated by QEMU)"
QEMU_URL = "https://www.qemu.org/docs/master/system/arm/mps2.html"


def platform_board(board: dict) -> dict:
    """The PlatformIO board manifest of a Mote board (the dict of boards/<name>.json;
    it must name a QEMU machine): display name from its description and core,
    ``build.mcu`` = the Mote board name (what :func:`mote_board_for` maps back),
    core flags, clock (Hz), and flash / RAM sizes (bytes) as upload limits."""
    title = board["description"].split(":", 1)[1].split(" FPGA image")[0].strip()
    core = "Cortex-" + board["core"].split("-", 1)[1].upper()
    build = {"cpu": board["mcpu"], "mcu": board["name"], "f_cpu": f"{board['clock_hz']}L",
             "float_abi": board["mfloat_abi"]}
    if board["mfloat_abi"] != "soft" and board.get("mfpu"):
        build["fpu"] = board["mfpu"]
    return {
        "name": f"{title} ({core}, QEMU)",
        "vendor": QEMU_VENDOR,
        "url": QEMU_URL,
        "frameworks": [],
        "build": build,
        "upload": {"protocol": "qemu", "protocols": ["qemu"], "qemu_machine": board["simulator"]["machine"],
                   "maximum_size": int(board["flash"]["size"], 0),
                   "maximum_ram_size": int(board["ram"]["size"], 0)},
    }


def platform_boards(root: Path = MOTE_ROOT) -> dict:
    """{"<board>.json": manifest text} for every board of root/boards that QEMU simulates,
    except those PlatformIO has in another platform (MCU_TO_BOARD: the micro:bit)."""
    out = {}
    for path in sorted((root / "boards").glob("*.json")):
        board = json.loads(path.read_text())
        if (board.get("simulator") or {}).get("kind") == "qemu" and board["name"] not in MCU_TO_BOARD.values():
            out[path.name] = json.dumps(platform_board(board), indent=2) + "\n"
    return out


def write_platform_boards(root: Path = MOTE_ROOT) -> list:
    """Write the local platform's board manifests (integrations/platformio/platform/boards)
    from boards/*.json, removing those of boards that are gone. Returns the paths written."""
    folder = root / "integrations" / "platformio" / "platform" / "boards"
    folder.mkdir(parents=True, exist_ok=True)
    wanted = platform_boards(root)
    for stale in folder.glob("*.json"):
        if stale.name not in wanted:
            stale.unlink()
    written = []
    for name, text in wanted.items():
        path = folder / name
        if not path.is_file() or path.read_text() != text:
            path.write_text(text)
            written.append(path)
    return written
