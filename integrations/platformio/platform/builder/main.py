"""Build script of Mote's local PlatformIO platform (mote-qemu).

Bare-metal Cortex-M with the GNU Arm Embedded toolchain (package
toolchain-gccarmnoneeabi; offline, scripts/platformio_setup.py links the
system's arm-none-eabi tools). The startup code, vectors, UART driver and
linker script come from Mote's port (the library's extraScript adds them from
mote_sources.json). The `upload` target runs the firmware on the board's QEMU
machine through `aot qemu`, prints UART0 and fails when the firmware's
exit status (semihosting) is not 0.
"""
import os
import subprocess
import sys

from SCons.Script import (  # pylint: disable=import-error
    COMMAND_LINE_TARGETS,
    AlwaysBuild,
    Builder,
    Default,
    DefaultEnvironment,
)

env = DefaultEnvironment()
board = env.BoardConfig()
platform = env.PioPlatform()

# integrations/platformio/mote_pio.py beside this platform (the platform is installed
# as a symlink to integrations/platformio/platform, so realpath finds the checkout).
MOTE_PIO_DIR = os.path.dirname(os.path.realpath(platform.get_dir()))
if MOTE_PIO_DIR not in sys.path:
    sys.path.insert(0, MOTE_PIO_DIR)
import mote_pio  # noqa: E402  pylint: disable=import-error,wrong-import-position

cpu = board.get("build.cpu")
fpu = board.get("build.fpu", "")
float_abi = board.get("build.float_abi", "soft")
ARCH = ["-mthumb", "-mcpu=%s" % cpu, "-mfloat-abi=%s" % float_abi]
if fpu:
    ARCH.append("-mfpu=%s" % fpu)

env.Replace(
    AR="arm-none-eabi-gcc-ar",
    AS="arm-none-eabi-as",
    CC="arm-none-eabi-gcc",
    CXX="arm-none-eabi-g++",
    GDB="arm-none-eabi-gdb",
    OBJCOPY="arm-none-eabi-objcopy",
    RANLIB="arm-none-eabi-gcc-ranlib",
    SIZETOOL="arm-none-eabi-size",
    ARFLAGS=["rc"],
    PROGSUFFIX=".elf",
    SIZECHECKCMD="$SIZETOOL -A -d $SOURCES",
    SIZEPROGREGEXP=r"^(?:\.text|\.data|\.rodata|\.ARM\.exidx|\.ARM\.extab)\s+(\d+).*",
    SIZEDATAREGEXP=r"^(?:\.data|\.bss|\.stack)\s+(\d+).*",
    SIZEPRINTCMD="$SIZETOOL -B -d $SOURCES",
)

env.Append(
    ASFLAGS=ARCH,
    ASPPFLAGS=ARCH + ["-x", "assembler-with-cpp"],
    CCFLAGS=ARCH + ["-Os", "-g", "-ffunction-sections", "-fdata-sections", "-fno-common", "-Wall"],
    CPPDEFINES=[("F_CPU", "$BOARD_F_CPU")],
    LINKFLAGS=ARCH + ["-Os", "-nostartfiles", "--specs=nano.specs", "-Wl,--gc-sections",
                      "-Wl,--no-warn-rwx-segments", "-Wl,-Map,${BUILD_DIR}/${PROGNAME}.map"],
    LIBS=["m", "c", "gcc"],
    BUILDERS=dict(
        ElfToBin=Builder(
            action=env.VerboseAction(
                "$OBJCOPY -O binary -R .mote_model $SOURCES $TARGET", "Building $TARGET"),
            suffix=".bin",
        ),
    ),
)

if "nobuild" in COMMAND_LINE_TARGETS:
    target_elf = os.path.join("$BUILD_DIR", "${PROGNAME}.elf")
    target_bin = os.path.join("$BUILD_DIR", "${PROGNAME}.bin")
else:
    target_elf = env.BuildProgram()
    target_bin = env.ElfToBin(os.path.join("$BUILD_DIR", "${PROGNAME}"), target_elf)
    env.Depends(target_bin, "checkprogsize")

AlwaysBuild(env.Alias("nobuild", target_bin))
target_buildprog = env.Alias("buildprog", target_bin, target_bin)

AlwaysBuild(env.Alias("size", target_elf, env.VerboseAction("$SIZEPRINTCMD", "Calculating size $SOURCE")))


def run_in_qemu(target, source, env):  # pylint: disable=unused-argument
    """upload: the ELF on the board's QEMU machine, UART0 on the terminal."""
    timeout = env.GetProjectOption("custom_mote_qemu_timeout", "120")
    try:
        mote_board = mote_pio.mote_board_for(board.get("build.mcu"),
                                             env.GetProjectOption("custom_mote_board", None))
        python, _ = mote_pio.find_python(env.GetProjectOption("custom_mote_python", None),
                                         env.subst("$PYTHONEXE"))
    except (mote_pio.MoteOptionError, mote_pio.MoteSetupError) as exc:
        sys.stderr.write("mote: error: %s\n" % exc)
        return 1
    elf = source[0].get_abspath()
    # aot qemu: the QEMU command line of Mote's boards, UART0 printed as
    # it arrives, the exit status of the firmware (124 on timeout).
    cmd = [python, "-m", "aot", "qemu", elf, "--board", mote_board, "--timeout", str(timeout)]
    sys.stdout.flush()
    code = subprocess.call(cmd)
    print("mote: firmware exited with status %d" % code)
    return code


AlwaysBuild(env.Alias("upload", target_elf,
                      env.VerboseAction(run_in_qemu,
                                        "Running $SOURCE in QEMU (%s)" % board.get("upload.qemu_machine"))))

Default([target_buildprog])
