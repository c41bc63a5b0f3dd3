"""Errors the AOT compiler raises. All derive from :class:`MoteError` so the
CLI can turn any of them into exit code 1 with a readable message."""
from __future__ import annotations


class MoteError(Exception):
    """Base class of every error the Mote AOT compiler raises on purpose."""


class InputError(MoteError, ValueError):
    """An inputs or calibration file cannot be read or does not fit the program
    (count, shape, dtype); the message names the input."""


class ModelFileError(MoteError):
    """A model file cannot be loaded: wrong suffix, missing ``model()`` /
    ``example_inputs()``, wrong return types."""


class ExportError(MoteError):
    """torch.export could not capture the model (message carries torch's)."""


class UnsupportedOpError(MoteError):
    """The graph uses an operator the Mote runtime has no kernel for.

    ``op``: the operator name (e.g. "aten::cumsum.out" or "aten::cumsum.default"
    when no out-variant exists); ``source``: "file.py:LINE" of the model code
    that produced it ("" when unknown).
    """

    def __init__(self, op: str, source: str = "", detail: str = ""):
        self.op = op
        self.source = source
        where = f" at {source}" if source else ""
        extra = f" ({detail})" if detail else ""
        super().__init__(f"operator {op} is not supported by the Mote runtime{where}{extra}")


class CompileError(MoteError):
    """The compiler failed on the model with an exception of its own or of torch's
    (not a MoteError): the message names the stage, the operator and the model's
    file:line where known; ``__cause__`` is the original exception (``aot -v`` prints
    its traceback)."""


class LoweringError(MoteError):
    """The graph has a construct the lowering cannot express (dynamic shapes,
    unsupported dtypes, buffer mutation, ...)."""


class PlanError(MoteError):
    """A memory plan is invalid: overlapping live tensors, a tensor outside
    its arena, a misaligned offset or an unplanned tensor."""


# --------------------------------------------------------------------------- program format


class SchemaError(MoteError, ValueError):
    """A Python object does not fit the schema (wrong type, bad union member)."""


class FlatbufferError(MoteError, ValueError):
    """Malformed flatbuffer: offset/vtable/vector outside the buffer, bad union tag."""


class PteFormatError(MoteError, ValueError):
    """The file is not a well-formed .pte (bad identifier, header, offset,
    segment or index)."""


# --------------------------------------------------------------------------- compiler


class EmitError(MoteError, ValueError):
    """The ProgramSpec cannot be emitted (bad index, size, type or plan)."""


# --------------------------------------------------------------------------- host runtime


class RuntimeCallError(MoteError, RuntimeError):
    """A call into the C runtime (libmote) failed: `code` is the mote_err_t value, `name` its enum name."""

    def __init__(self, code: int, name: str, what: str = ""):
        self.code = code
        self.name = name
        #: index of the instruction that failed (execute errors), else None
        self.instruction = None
        super().__init__(f"{what + ': ' if what else ''}{name} ({code})")


# --------------------------------------------------------------------------- target


class QemuError(MoteError):
    """QEMU could not be started or the board has no QEMU machine."""


class QemuTimeout(QemuError):
    """The firmware did not exit within the timeout; `.output` holds the UART text so far."""

    def __init__(self, message: str, output: str):
        super().__init__(message)
        self.output = output


class BoardError(MoteError):
    """A board name is unknown or its file is malformed."""


class RunError(MoteError):
    """The program or build directory cannot be run as asked."""


class FirmwareError(MoteError):
    """Compiling or linking firmware failed (message carries the compiler output)."""


class LabwiredError(MoteError):
    """labwired is missing, cannot load the image, or the image is not a Pico 2 image."""


class LabwiredTimeout(LabwiredError):
    """The firmware did not print ``MOTE EXIT`` in time; `.output` holds the UART text so far."""

    def __init__(self, message: str, output: str):
        super().__init__(message)
        self.output = output


class BuildError(MoteError):
    """The firmware cannot be built: missing kernel, model too large, toolchain error."""


class Uf2Error(MoteError):
    """A UF2 file is malformed."""


class BinaryInfoError(MoteError):
    """An image has no readable Raspberry Pi binary info (aot.deploy.binary_info), or
    what Mote would write there does not fit its layout."""


class ProtocolError(MoteError):
    """A firmware's UART line does not fit the protocol or the build's outputs."""


class SerialPortError(MoteError):
    """A serial port (device or pyserial URL) cannot be opened or was lost.
    The command line exits with status 2 for it (bad usage: wrong port)."""

    exit_code = 2


class FlashError(MoteError):
    """Firmware cannot be flashed: no BOOTSEL drive, a drive or UF2 for another
    chip, no UF2 for this board, or the flashing tool is missing or failed.
    Nothing was written when it is raised before the copy."""


def note_moved_entry_point(old: str, new: str) -> None:
    """One line on stderr for an entry point kept one release after its move:
    ``python -m <old>`` now runs as ``<new>`` (an ``aot`` subcommand)."""
    import sys
    print(f"mote: `python -m {old}` is now `{new}`; the old form goes in the next release", file=sys.stderr)
