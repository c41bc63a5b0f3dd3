"""Reuses the runtime tests' fixtures (C builds, ExecuTorch-made .pte files)."""
import importlib.util
from pathlib import Path

_path = Path(__file__).resolve().parents[1] / "runtime" / "conftest.py"
_spec = importlib.util.spec_from_file_location("_mote_runtime_fixtures", _path)
_mod = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_mod)

host_build = _mod.host_build
asan_build = _mod.asan_build
models = _mod.models
pte = _mod.pte
