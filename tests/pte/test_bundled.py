"""aot.pte.bundled on bundled tensors a file can hold but no program gives:
negative sizes, sizes whose product wraps a 64-bit integer (issue 34)."""
import flatbuffers
import numpy as np
import pytest

from aot.cli import main
from aot.compiler import emit
from aot.errors import FlatbufferError
from aot.pte.bundled import (FILE_IDENTIFIER, BUNDLE_VERSION, BundledMethodTestCase, BundledMethodTestSuite,
                             BundledProgram, Tensor, Value, read_bundled, bundled_suites, value_array)
from aot.pte.schema import write_table
from tests.pte.test_format_specs import linear_relu_spec

F32 = 6


def _tensor(sizes, nbytes):
    return Value(Tensor(scalar_type=F32, sizes=sizes, data=b"\0" * nbytes, dim_order=list(range(len(sizes)))))


def test_well_formed_tensor_reads():
    a = value_array(_tensor([2, 3], 24))
    assert a.dtype == np.float32 and a.shape == (2, 3) and not a.any()


@pytest.mark.parametrize("sizes, nbytes, says", [
    ([-1, -4], 16, r"^case input 0: negative size in \[-1, -4\]$"),  # product 4: 16 bytes fit
    ([-2, 2], 0, r"^case input 0: negative size in \[-2, 2\]$"),
    # 2**31-1 cubed is about 2**93: an int64 product wraps; the bytes never fit it
    ([2**31 - 1] * 3, 16, rf"^case input 0: 16 data bytes, a float32 tensor of .* has {(2**31 - 1)**3 * 4}$"),
    ([2**16, 2**16, 2**16, 2**16], 0, r"^case input 0: 0 data bytes, a float32 tensor of .* has 73786976294838206464$"),
])
def test_sizes_no_program_has_are_refused(sizes, nbytes, says):
    with pytest.raises(FlatbufferError, match=says):
        value_array(_tensor(sizes, nbytes), "case input 0")


def _bpte(program: bytes, value: Value) -> bytes:
    root = BundledProgram(version=BUNDLE_VERSION, program=program, method_test_suites=[
        BundledMethodTestSuite(method_name="forward", test_cases=[
            BundledMethodTestCase(inputs=[value], expected_outputs=[_tensor([2, 4], 32)])])])
    b = flatbuffers.Builder(1024)
    b.Finish(write_table(b, root), file_identifier=FILE_IDENTIFIER)
    return bytes(b.Output())


def test_aot_test_refuses_negative_sizes_in_one_line(tmp_path, capsys):
    spec, _ = linear_relu_spec()
    pte = tmp_path / "m.pte"
    emit.write_pte(spec, pte)
    data = _bpte(pte.read_bytes(), _tensor([-2, -3], 24))  # product 6: 24 bytes of float32 fit
    with pytest.raises(FlatbufferError, match="negative size"):
        bundled_suites(read_bundled(data))
    path = tmp_path / "neg.bpte"
    path.write_bytes(data)
    capsys.readouterr()
    assert main(["test", str(path)]) == 1
    err = capsys.readouterr().err
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1
    assert "forward case 0 input 0: negative size in [-2, -3]" in err
