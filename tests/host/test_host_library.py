"""The host library fixture's staleness rule (tests/shared_build.py): a source newer
than both the library and the last build's stamp makes the library stale."""
import os

from shared_build import HOST_SOURCES, ROOT, is_stale, newest_source_mtime


def _touch(path, t):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("x")
    os.utime(path, (t, t))
    return path


def test_missing_library_is_stale(tmp_path):
    assert is_stale(tmp_path / "libmote.so", tmp_path / "stamp", 0.0)


def test_newer_source_than_library_and_stamp_is_stale(tmp_path):
    lib = _touch(tmp_path / "libmote.so", 1000)
    assert not is_stale(lib, tmp_path / "stamp", 999.0)
    assert not is_stale(lib, tmp_path / "stamp", 1000.0)
    assert is_stale(lib, tmp_path / "stamp", 1001.0)
    _touch(tmp_path / "stamp", 2000)   # a build after the edit that relinked nothing
    assert not is_stale(lib, tmp_path / "stamp", 1001.0)
    assert is_stale(lib, tmp_path / "stamp", 2001.0)


def test_newest_source_sees_c_files_and_cmake_only(tmp_path):
    _touch(tmp_path / "kernels" / "op_add.c", 500)
    _touch(tmp_path / "kernels" / "README.md", 900)      # not a build input
    _touch(tmp_path / "runtime" / "include" / "mote" / "types.h", 700)
    assert newest_source_mtime(tmp_path, ("kernels", "runtime")) == 700
    _touch(tmp_path / "CMakeLists.txt", 800)
    assert newest_source_mtime(tmp_path, ("kernels", "runtime", "CMakeLists.txt")) == 800
    assert newest_source_mtime(tmp_path, ("nowhere",)) == 0.0


def test_the_sources_are_the_host_build_inputs():
    """Every folder the root CMakeLists.txt adds to the library's build is watched."""
    import re
    text = (ROOT / "CMakeLists.txt").read_text()
    subs = re.search(r"foreach\(sub (runtime [^)]*)\)", text).group(1).split()
    assert "kernels" in subs and "ports/linux" in subs
    for sub in subs:
        assert any(sub == s or sub.startswith(s + "/") for s in HOST_SOURCES), sub
    assert all((ROOT / rel).exists() for rel in HOST_SOURCES)
    assert newest_source_mtime(ROOT, ("kernels",)) > 0
