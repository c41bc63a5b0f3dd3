# Mote's PlatformIO library build script (library.json: build.extraScript).
#
# For the environment being built it reads custom_mote_* from platformio.ini,
# runs `aot generate` once (cached under $BUILD_DIR/mote by a content hash of
# its inputs; several models in custom_mote_model are one generate: one
# registry, each model's API mote_model_<name>_* in mote_models.h), adds
# the generated sources, the runtime and the model's kernels to the build
# with env.BuildSources, puts the include folders on the path and
# prints the size table. With Mote's local platform (mote-qemu), or with
# custom_mote_port = yes, it also adds Mote's bare-metal port (startup,
# vectors, UART, linker script) from mote_sources.json's "port" section; on a
# board flashed as a UF2 (the port's uf2_family_id: pico, pico2) a post-build
# action then writes ${PROGNAME}.uf2 beside the ELF with `aot uf2`.
#
# PlatformIO runs a library's extraScript each time it creates the library's
# builder, which can happen more than once per environment; the generate step
# and the sources are done once per SCons run (per environment), the flags
# for every builder.
import os
import subprocess
import sys
import time

from SCons.Script import DefaultEnvironment  # pylint: disable=import-error

Import("env", "pio_lib_builder")  # noqa: F821  pylint: disable=undefined-variable

MOTE_PIO_DIR = os.path.join(pio_lib_builder.path, "integrations", "platformio")  # noqa: F821
if MOTE_PIO_DIR not in sys.path:
    sys.path.insert(0, MOTE_PIO_DIR)
import mote_pio  # noqa: E402  pylint: disable=import-error,wrong-import-position

LOCAL_PLATFORM = "mote-qemu"
genv = DefaultEnvironment()


def _say(msg):
    print("mote: " + msg)
    sys.stdout.flush()


def _fail(msg):
    sys.stderr.write("mote: error: %s\n" % msg)
    sys.stderr.flush()
    genv.Exit(1)


def _option(name):
    value = env.GetProjectOption("custom_mote_" + name, None)  # noqa: F821
    return None if value is None else str(value)


def _generate(opts, mote_dir):
    """The generated folder for `opts`: cached, or made now. Returns (sources, table)."""
    gen_dir = os.path.join(mote_dir, "gen")
    key_file = os.path.join(mote_dir, "inputs.sha256")
    table_file = os.path.join(mote_dir, "generate.txt")
    key = mote_pio.cache_key(opts)
    manifest = os.path.join(gen_dir, "mote_sources.json")
    if os.path.isfile(key_file) and os.path.isfile(manifest):
        with open(key_file) as fp:
            if fp.read().strip() == key:
                print(mote_pio.UP_TO_DATE.format(key=key[:16]))
                table = ""
                if os.path.isfile(table_file):
                    with open(table_file) as fp:
                        table = fp.read()
                return mote_pio.MoteSources.load(manifest), table
    try:
        python, where = mote_pio.find_python(opts.python, env.subst("$PYTHONEXE"))  # noqa: F821
    except mote_pio.MoteSetupError as exc:
        _fail(str(exc))
    cmd = mote_pio.aot_command(python) + opts.generate_args(gen_dir)
    _say("aot generate %s (board %s%s%s%s%s; hash %s; aot from %s)" % (
        " ".join(m.arg() for m in opts.model_entries()), opts.board, ", int8" if opts.int8 else "",
        ", self-test %d case(s)" % opts.selftest if opts.selftest else "",
        ", memory %s" % opts.memory if opts.memory else "",
        ", " + " ".join(opts.options) if opts.options else "", key[:16], where))
    if os.path.isfile(key_file):
        os.remove(key_file)  # a failed generate leaves no valid key behind
    os.makedirs(mote_dir, exist_ok=True)
    t0 = time.monotonic()
    # relative paths in custom_mote_options (--calib) are relative to the project, as the model's
    proc = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                          universal_newlines=True, cwd=env.subst("$PROJECT_DIR"))  # noqa: F821
    if proc.returncode != 0:
        sys.stderr.write(proc.stdout)
        _fail("aot generate failed (exit %d): %s" % (proc.returncode, " ".join(cmd[3:])))
    table = proc.stdout
    with open(table_file, "w") as fp:
        fp.write(table)
    with open(key_file, "w") as fp:
        fp.write(key + "\n")
    _say("generated %s in %.1f s" % (gen_dir, time.monotonic() - t0))
    return mote_pio.MoteSources.load(manifest), None if not table else table


def _variant(mote_dir, folder, root, tag=""):
    """A build folder for the objects of one source folder: gen/... for the
    generated files, else the folder's path in the Mote checkout `root`."""
    folder = os.path.realpath(str(folder))
    root = os.path.realpath(str(root))
    gen = os.path.realpath(os.path.join(mote_dir, "gen"))
    if folder == gen or folder.startswith(gen + os.sep):
        rel = os.path.join("gen", os.path.relpath(folder, gen))
    elif folder == root or folder.startswith(root + os.sep):
        rel = os.path.relpath(folder, root)
    else:
        rel = os.path.join("ext", folder.lstrip(os.sep))  # unique per folder
    return os.path.normpath(os.path.join(mote_dir, "obj" + tag, rel))


def _build_files(build_env, mote_dir, files, root, tag=""):
    for folder, names in mote_pio.group_by_dir(files).items():
        src_filter = ["-<*>"] + ["+<%s>" % n for n in names]
        build_env.BuildSources(_variant(mote_dir, folder, root, tag), str(folder), src_filter)


def _use_port(opts):
    if opts.port is not None:
        return opts.port
    return genv.get("PIOPLATFORM") == LOCAL_PLATFORM


def _flags(build_env, srcs, port):
    """Include folders, defines and C flags of the Mote sources on `build_env`."""
    incs = [str(d) for d in srcs.include_dirs]
    defines = mote_pio.cppdefines(srcs.defines)
    if port:
        incs += [str(d) for d in srcs.port.get("include_dirs", [])]
        defines += mote_pio.cppdefines(srcs.port.get("defines", {}))
    build_env.AppendUnique(CPPPATH=incs)
    build_env.Append(CPPDEFINES=defines)
    cflags = list(srcs.cflags)
    if genv.get("PIOPLATFORM") == LOCAL_PLATFORM:
        # Mote's own toolchain set-up: hold its sources to Mote's warnings.
        cflags += [f for f in srcs.raw.get("warning_flags", []) if f not in cflags]
    build_env.Append(CFLAGS=cflags)


def _uf2_action(board):
    """The post-build action writing <program>.uf2 from the linked ELF: `aot uf2 ELF
    --board BOARD -o ...` (the one ELF->UF2 path of Mote, as `aot build` writes firmware.uf2)."""
    def write_uf2(target, source, env):  # pylint: disable=unused-argument
        elf = target[0].get_abspath()
        uf2 = os.path.splitext(elf)[0] + ".uf2"
        try:
            python, _ = mote_pio.find_python(_option("python"), env.subst("$PYTHONEXE"))
        except mote_pio.MoteSetupError as exc:
            sys.stderr.write("mote: error: %s\n" % exc)
            return 1
        cmd = mote_pio.aot_command(python) + ["uf2", elf, "--board", board, "-o", uf2]
        sys.stdout.flush()
        return subprocess.call(cmd)
    return genv.VerboseAction(write_uf2, "Mote: ${PROGNAME}.uf2 for %s (aot uf2)" % board)


def _setup_once():
    mote_dir = genv.subst(os.path.join("$BUILD_DIR", "mote"))
    try:
        opts = mote_pio.read_options(_option, genv.subst("$PROJECT_DIR"),
                                     genv.BoardConfig().get("build.mcu", None)
                                     if "BOARD" in genv else None)
    except mote_pio.MoteOptionError as exc:
        _fail(str(exc))
    srcs, table = _generate(opts, mote_dir)
    if table:
        print(table.rstrip("\n"))
    port = _use_port(opts)
    state = {"srcs": srcs, "port": port, "opts": opts}
    root = srcs.root or mote_pio.MOTE_ROOT
    if os.path.realpath(str(root)) != os.path.realpath(str(mote_pio.MOTE_ROOT)):
        _say("warning: aot comes from another Mote checkout (%s) than this library (%s): "
             "that checkout's runtime and kernels are compiled" % (root, mote_pio.MOTE_ROOT))

    build_env = env.Clone()  # noqa: F821
    _flags(build_env, srcs, port)
    kernels = set(str(p) for p in srcs.kernel_sources)
    others = [p for p in srcs.sources if str(p) not in kernels]
    _build_files(build_env, mote_dir, others, root)
    fast_env = build_env.Clone()
    fast_env.Append(CCFLAGS=["-O2"])  # the kernels for speed, the rest for size
    _build_files(fast_env, mote_dir, srcs.kernel_sources, root, "-O2")

    if port:
        p = srcs.port
        _build_files(build_env, mote_dir, [mote_pio.Path(s) for s in p.get("sources", [])], root, "-port")
        ldflags = [f for f in p.get("ldflags", []) if not f.startswith("-T")]
        if p.get("linker_script"):
            genv.Replace(LDSCRIPT_PATH=str(p["linker_script"]))
        genv.AppendUnique(LINKFLAGS=ldflags)
        genv.AppendUnique(LIBS=mote_pio.libs_of(p.get("libs", [])))
        _say("bare-metal port for %s: %d files, linker script %s" % (
            srcs.board, len(p.get("sources", [])), p.get("linker_script")))
        if p.get("uf2_family_id"):
            genv.AddPostAction(os.path.join("$BUILD_DIR", "${PROGNAME}${PROGSUFFIX}"), _uf2_action(srcs.board))
            _say("UF2 for %s (family %s): %s.uf2 beside the ELF after each link" % (
                srcs.board, p["uf2_family_id"], genv.subst("${PROGNAME}")))
    elif genv.get("PIOPLATFORM") == LOCAL_PLATFORM:
        _say("custom_mote_port = no: your sources provide the startup code and linker script")
    else:
        _say("no Mote port: your platform provides startup and the hooks "
             "mote_port_log, mote_port_ticks and mote_port_abort (mote/port.h)")

    arch = [f for f in srcs.arch_flags if f.startswith("-mcpu=")]
    have = [str(f) for f in genv.get("CCFLAGS", []) if str(f).startswith("-mcpu=")]
    if arch and have and arch[0] != have[-1]:
        _say("warning: this environment compiles with %s but Mote board %s is %s "
             "(set custom_mote_board)" % (have[-1], srcs.board, arch[0]))
    genv["MOTE_PIO_STATE"] = state
    return state


state = genv.get("MOTE_PIO_STATE")
if state is None:
    state = _setup_once()
else:
    state["loads"] = state.get("loads", 1) + 1
    _say("library builder %d of this environment: sources already added, flags only" % state["loads"])
# Every builder of this library (PlatformIO may make several): the include
# folders reach the project's own sources through the library's CPPPATH.
_flags(env, state["srcs"], state["port"])  # noqa: F821
