"""The .pte format version: one #define in runtime/include/mote/config.h, stamped into the
"eh00" extended header (length 40: "MOTE" + u32 version at file bytes 40..48), checked by
mote_program_load; ExecuTorch's own runtime still loads the stamped file."""
import ctypes as C
import mmap
import struct

import numpy as np
import pytest

import _harness as H

from aot.pte.header import CONFIG_H, format_version, parse_header


def stamp(data: bytes, version: int, magic: bytes = b"MOTE") -> bytes:
    """`data` (a .pte with a 32-byte eh00 header) with the 40-byte stamped header, padded to
    48 bytes: the flatbuffer body moves by 16 bytes, the segments stay 128-aligned."""
    d = bytearray(data)
    assert d[8:12] == b"eh00" and struct.unpack_from("<I", d, 12)[0] == 32
    root = struct.unpack_from("<I", d, 0)[0]
    psize, base, dsize = struct.unpack_from("<QQQ", d, 16)
    ins = magic + struct.pack("<I", version) + bytes(8)
    new_psize = psize + len(ins)
    new_base = (new_psize + 127) // 128 * 128 if base else 0
    out = bytearray(d[:40] + ins + d[40:psize])
    out += bytes(new_base - len(out)) if base else b""
    out += d[base:] if base else d[psize:]
    struct.pack_into("<I", out, 0, root + len(ins))
    struct.pack_into("<IQQQ", out, 12, 40, new_psize, new_base, dsize)
    return bytes(out)


@pytest.fixture(scope="module")
def base(pte):
    return pte("const_mul").read_bytes()


@pytest.fixture(scope="module")
def checker(asan_build):
    return asan_build / "tests" / "runtime" / "loader_check"


@pytest.fixture(scope="module")
def lib(host_build):
    lib = C.CDLL(str(host_build / "ports" / "linux" / "libmote.so"))
    lib.mote_host_sizeof_program.restype = C.c_size_t
    lib.mote_program_load.argtypes = [C.c_void_p, C.c_void_p, C.c_size_t]
    lib.mote_program_load.restype = C.c_int
    lib.mote_program_format_version.argtypes = [C.c_void_p]
    lib.mote_program_format_version.restype = C.c_uint32
    return lib


def load_readonly(lib, data: bytes, tmp_path):
    """mote_program_load over the file mapped read-only (mmap PROT_READ): (code, format version)."""
    f = tmp_path / "ro.pte"
    f.write_bytes(data)
    with open(f, "rb") as fh:
        mm = mmap.mmap(fh.fileno(), 0, prot=mmap.PROT_READ)
    view = np.frombuffer(mm, dtype=np.uint8)
    prog = (C.c_uint8 * lib.mote_host_sizeof_program())()
    code = lib.mote_program_load(C.addressof(prog), view.ctypes.data, len(data))
    version = lib.mote_program_format_version(C.addressof(prog))
    del view
    mm.close()
    return code, version


def test_version_is_one_plain_define():
    v = format_version()
    assert v >= 1
    text = CONFIG_H.read_text()
    assert f"#define MOTE_PTE_FORMAT_VERSION {v}\n" in text
    # not overridable: no #ifndef guard around it
    assert "#ifndef MOTE_PTE_FORMAT_VERSION" not in text


def test_mote_emitter_stamps_the_runtime_version(models, lib, tmp_path):
    """A file from Mote's own compiler carries config.h's version, and the C loader reads
    the same number back (so the Python reader of config.h and the C macro agree)."""
    from aot.compiler.pipeline import compile_module

    mod, ex = models["const_mul"]
    data = compile_module("const_mul", mod, ex).pte
    assert parse_header(data).format_version == format_version()
    assert load_readonly(lib, data, tmp_path) == (0, format_version())


def test_executorch_file_is_version_0(base, lib, checker, tmp_path):
    assert load_readonly(lib, base, tmp_path) == (0, 0)
    f = tmp_path / "et.pte"
    f.write_bytes(base)
    assert H.run_checker(checker, [f], "--run")[0] == ["0", "MOTE_OK", "ok"]


def test_stamped_file_loads_with_its_version(base, lib, checker, tmp_path):
    v = format_version()
    data = stamp(base, v)
    assert data[40:44] == b"MOTE" and struct.unpack_from("<I", data, 44)[0] == v
    assert load_readonly(lib, data, tmp_path) == (0, v)
    f = tmp_path / "stamped.pte"
    f.write_bytes(data)
    assert H.run_checker(checker, [f], "--run")[0] == ["0", "MOTE_OK", "ok"]


@pytest.mark.parametrize("delta,want", [(1, "FORMAT_VERSION"), (1000, "FORMAT_VERSION")])
def test_newer_version_is_refused_at_load(delta, want, base, lib, checker, tmp_path):
    data = stamp(base, format_version() + delta)
    assert load_readonly(lib, data, tmp_path) == (H.E[want], 0)
    f = tmp_path / "newer.pte"
    f.write_bytes(data)
    assert H.run_checker(checker, [f], "--run")[0] == [str(H.E[want]), f"MOTE_ERR_{want}", "load"]


def test_stamp_of_zero_is_a_bad_header(base, checker, tmp_path):
    f = tmp_path / "zero.pte"
    f.write_bytes(stamp(base, 0))
    assert H.run_checker(checker, [f], "--run")[0] == [str(H.E["BAD_HEADER"]), "MOTE_ERR_BAD_HEADER", "load"]


def test_longer_header_without_the_magic_is_unstamped(base, lib, tmp_path):
    """Bytes past the fields Mote knows, without "MOTE", are someone else's: version 0."""
    assert load_readonly(lib, stamp(base, 99, magic=b"XXXX"), tmp_path) == (0, 0)


@pytest.mark.oracle
def test_executorch_runtime_loads_the_stamped_file(base, models):
    import torch
    from executorch.runtime import Runtime

    _, (x,) = models["const_mul"]
    rt = Runtime.get()
    want = rt.load_program(base).load_method("forward").execute([x])[0]
    # keep the bytes alive: ExecuTorch's Program points into the buffer it was given
    stamped = stamp(base, format_version())
    got = rt.load_program(stamped).load_method("forward").execute([x])[0]
    assert torch.equal(got, want)
    # and it refuses what Program.version would have been (why the stamp is in the header)
    from executorch.exir._serialize._program import PTEFile, deserialize_pte_binary, serialize_pte_binary

    prog = deserialize_pte_binary(base).program
    prog.version = 1
    with pytest.raises(RuntimeError):
        rt.load_program(bytes(serialize_pte_binary(PTEFile(program=prog))))
