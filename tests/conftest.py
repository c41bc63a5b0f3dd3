"""Shared pytest fixtures and paths."""
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))
if str(ROOT / "tests") not in sys.path:  # tests/shared_build.py
    sys.path.insert(0, str(ROOT / "tests"))
