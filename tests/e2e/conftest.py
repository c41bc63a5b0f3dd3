"""Shared, session-scoped caches for the firmware end-to-end tests.

Every zoo model is compiled once per dtype and built once per board and
dtype; each firmware embeds N_SETS random input sets (the `aot compare`
inputs, seeds 0..N_SETS-1) and one QEMU boot runs them all. Tests that need
the figures ask the cache; the first one to ask pays for the build.
"""
from __future__ import annotations

import json
import warnings
from dataclasses import dataclass, field
from pathlib import Path
from typing import Optional

import numpy as np
import pytest

import zoo

SIM_BOARDS = ("mps2-an505", "mps3-an547")
ZOO_MODELS = tuple(zoo.MODELS)
N_SETS = 2
#: Per-model figures collected while the tests run; written at session end.
REPORT_PATH = Path(__file__).resolve().parents[2] / "build" / "e2e_firmware_report.json"


@dataclass
class Built:
    """One firmware build and its first QEMU run."""
    out_dir: Path
    art: object            # aot.deploy.build.BuildArtifacts
    run: object            # aot.deploy.run.RunResult
    inputs: list           # per set: list of numpy arrays


@dataclass
class FirmwareCache:
    root: Path
    compiled: dict = field(default_factory=dict)
    builds: dict = field(default_factory=dict)
    report: dict = field(default_factory=dict)
    py_ref: dict = field(default_factory=dict)

    def compile(self, name: str, int8: bool):
        key = (name, int8)
        if key not in self.compiled:
            from aot.compiler.pipeline import compile_model_file
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                self.compiled[key] = compile_model_file(zoo.path(name), int8=int8)
        return self.compiled[key]

    def inputs(self, name: str, int8: bool) -> list:
        """N_SETS random input sets (torch tensors), as `aot compare --seed k` makes them."""
        from aot.tools.compare import random_inputs
        c = self.compile(name, int8)
        return [random_inputs(c.example_inputs, seed) for seed in range(N_SETS)]

    def build(self, name: str, board: str, int8: bool) -> Built:
        key = (name, board, int8)
        if key not in self.builds:
            from aot.deploy.build import build_compiled
            from aot.deploy.run import run_build
            try:
                c = self.compile(name, int8)
                sets = [[t.numpy() for t in s] for s in self.inputs(name, int8)]
                out = self.root / f"{name}-{board}-{'int8' if int8 else 'fp32'}"
                art = build_compiled(c, board, out, input_sets=sets)
                result = run_build(out, timeout=120)
                self.builds[key] = Built(out_dir=out, art=art, run=result, inputs=sets)
            except Exception as e:  # build once: later tests see the same failure
                self.builds[key] = e
        built = self.builds[key]
        if isinstance(built, Exception):
            raise built
        return built

    def int8_reference(self, name: str) -> list:
        """Per input set, the outputs (numpy) of the lowered int8 graph run
        eagerly: the Python integer reference (aot/compiler/quant/int8ref.py)."""
        if name not in self.py_ref:
            import torch
            from aot.compiler.quant.lowering import int8_program
            c = self.compile(name, True)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                ep = int8_program(c.eager, c.example_inputs, c.calibration_data)
            mod = ep.module()
            outs = []
            with torch.no_grad():
                for inputs in self.inputs(name, True):
                    r = mod(*inputs)
                    r = (r,) if isinstance(r, torch.Tensor) else tuple(r)
                    outs.append([t.detach().numpy() for t in r])
            self.py_ref[name] = outs
        return self.py_ref[name]

    def host(self, name: str, int8: bool, sets=None) -> list:
        """Per input set (default: the N_SETS random sets), the host runtime's outputs."""
        from aot.host.runtime import Program
        method = Program(self.compile(name, int8).pte).method()
        sets = self.inputs(name, int8) if sets is None else sets
        return [method.run([t.numpy() for t in inputs]) for inputs in sets]

    @staticmethod
    def same_bits(a_sets, b_sets) -> bool:
        """Every output of every set has the same dtype, shape and bytes."""
        return len(a_sets) == len(b_sets) and all(
            len(a) == len(b) and all(x.dtype == y.dtype and x.shape == y.shape
                                     and FirmwareCache.np_bits(x) == FirmwareCache.np_bits(y)
                                     for x, y in zip(a, b))
            for a, b in zip(a_sets, b_sets))

    def record(self, name: str, board: str, dtype: str, **figures) -> None:
        self.report.setdefault(name, {}).setdefault(board, {}).setdefault(dtype, {}).update(figures)


    # ------------------------------------------------------------ helpers

    @staticmethod
    def elf_symbols(elf: Path) -> dict:
        """name -> (type, size, section name or None for undefined) for every ELF symbol."""
        from elftools.elf.elffile import ELFFile
        syms = {}
        with open(elf, "rb") as f:
            ef = ELFFile(f)
            for sym in ef.get_section_by_name(".symtab").iter_symbols():
                if not sym.name:
                    continue
                shndx = sym["st_shndx"]
                sec: Optional[str] = ef.get_section(shndx).name if isinstance(shndx, int) else None
                syms[sym.name] = (sym["st_info"]["type"], int(sym["st_size"]), sec)
        return syms

    @staticmethod
    def elf_section_sizes(elf: Path) -> dict:
        from elftools.elf.elffile import ELFFile
        with open(elf, "rb") as f:
            return {s.name: int(s["sh_size"]) for s in ELFFile(f).iter_sections() if s.name}

    @staticmethod
    def header_macro(path: Path, name: str) -> int:
        import re
        m = re.search(rf"#define {name} (\d+)u?", path.read_text())
        assert m, f"{name} not in {path}"
        return int(m.group(1))

    @staticmethod
    def model_params():
        return [pytest.param(m, id=m) for m in ZOO_MODELS]

    @staticmethod
    def np_bits(a) -> bytes:
        return np.ascontiguousarray(a).tobytes()


@pytest.fixture(scope="session")
def fw(tmp_path_factory) -> FirmwareCache:
    cache = FirmwareCache(root=tmp_path_factory.mktemp("firmware"))
    yield cache
    if cache.report:
        REPORT_PATH.parent.mkdir(parents=True, exist_ok=True)
        old = {}
        if REPORT_PATH.exists():
            try:
                old = json.loads(REPORT_PATH.read_text())
            except ValueError:
                old = {}
        for model, boards in cache.report.items():
            for board, dtypes in boards.items():
                for dtype, figs in dtypes.items():
                    old.setdefault(model, {}).setdefault(board, {}).setdefault(dtype, {}).update(figs)
        REPORT_PATH.write_text(json.dumps(old, indent=2, sort_keys=True) + "\n")


