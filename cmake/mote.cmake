# mote.cmake - Mote in a user's CMake build: `mote_add_model()`.
#
#   add_subdirectory(path/to/mote mote)        # or: find_package(Mote REQUIRED)
#   add_executable(app main.c)
#   mote_add_model(app MODEL model.py BOARD pico2 [INT8] [INT8_IO] [CALIB calib.npz]
#                  [SELFTEST <n>] [VERIFY_CHECKSUM] [DSP_WEIGHTS flash|arena] [PORT]
#                  [DEPENDS <files>...] [OUTPUT_DIR <dir>] [OPTIONS <aot generate options>...])
#
# Several models in one target: one call per model, each with a NAME (its API is
# mote_model_<name>_*, "mote_models.h"), and MEMORY shared|separate; see mote_add_model below.
#
# OPTIONS: any other `aot generate` option, spelled as on the command line
# (OPTIONS --int4-weights --group-size 64 --external-weights, --int16-activations);
# the keywords are shorthands for the same options. aot checks them all at
# configure time (`aot generate --dry-run`), which also names the files to compile.
#
# At build time a custom command runs `aot generate` (aot.deploy.generate) into
# OUTPUT_DIR (default <binary dir>/mote/<target>). It re-runs when the model
# file or a .py file beside it, the calibration file, a DEPENDS file, the
# board file or the compiler's own sources change, and only then. The
# target gets the generated program, registry and self-test cases, the
# embedding API (mote/model.h) and links one static library per board,
# mote_<board>, of the runtime and every kernel for the board (cmsis/ DSP/MVE
# versions on cores with them): the generated registry references only the
# program's kernels, so only those are linked.
#
# PORT: also compile Mote's bare-metal port for the board (startup, vectors,
# UART, the port hooks) and link with the board's linker script, for a project
# without startup code of its own (examples/cmake). Without PORT the
# application provides mote_port_log, mote_port_ticks and mote_port_abort.
# With PORT on a board flashed as a UF2 (pico, pico2) a post-build step writes
# <target>.uf2 beside the ELF (`aot uf2 ELF --board BOARD`), for the BOOTSEL drive
# or `aot flash <target>.uf2`.
#
# The compiler flags are the user's (toolchain file, CMAKE_C_FLAGS): give the
# board's -mcpu/-mfpu/-mfloat-abi there; `aot board-sources BOARD` prints
# them ("arch_flags").
#
# Python: MOTE_PYTHON (cache) is the interpreter that runs aot; by default the
# checkout's .venv (scripts/bootstrap.sh), else the first python3 on PATH that
# can import aot. A missing aot stops the configure step with the install line.

include_guard(GLOBAL)
cmake_minimum_required(VERSION 3.20)

if(NOT DEFINED MOTE_ROOT)
    get_filename_component(MOTE_ROOT "${CMAKE_CURRENT_LIST_DIR}/.." ABSOLUTE)
endif()
set(MOTE_ROOT "${MOTE_ROOT}" CACHE INTERNAL "Mote sources (aot/, runtime/, kernels/, ports/, boards/)")

function(_mote_find_python)
    if(MOTE_PYTHON)
        set(candidates "${MOTE_PYTHON}")
    else()
        set(candidates "${MOTE_ROOT}/.venv/bin/python")
        find_program(_mote_py3 NAMES python3 python)
        if(_mote_py3)
            list(APPEND candidates "${_mote_py3}")
        endif()
    endif()
    foreach(py IN LISTS candidates)
        if(EXISTS "${py}")
            # aot and what aot generate imports (torch, flatbuffers), not just aot's files
            execute_process(COMMAND "${CMAKE_COMMAND}" -E env "PYTHONPATH=${MOTE_ROOT}"
                                    "${py}" -c "import torch, flatbuffers, aot.cli"
                            RESULT_VARIABLE rc OUTPUT_QUIET ERROR_QUIET)
            if(rc EQUAL 0)
                set(MOTE_PYTHON "${py}" CACHE FILEPATH "Python interpreter with Mote's aot package" FORCE)
                return()
            endif()
        endif()
    endforeach()
    message(FATAL_ERROR "Mote: no Python that can import the aot package and torch (tried: ${candidates}). "
            "Install it: `${MOTE_ROOT}/scripts/bootstrap.sh` (a .venv in the checkout), or "
            "`pip install torch==2.13.0 -e ${MOTE_ROOT}` in your Python, or set -DMOTE_PYTHON=/path/to/python.")
endfunction()

# The model-independent sources for BOARD (runtime, embedding API, kernels,
# port), read once per board from `aot board-sources` into MOTE_<id>_* variables.
function(_mote_board_sources board id)
    get_property(done GLOBAL PROPERTY "MOTE_BOARD_${id}_LOADED")
    if(done)
        return()
    endif()
    _mote_find_python()
    # The port files depend on the board alone: written here (unchanged ones
    # keep their mtime), re-written when the board file changes (re-configure).
    set(port_dir "${CMAKE_BINARY_DIR}/mote/port-${id}")
    execute_process(COMMAND "${CMAKE_COMMAND}" -E env "PYTHONPATH=${MOTE_ROOT}"
                            "${MOTE_PYTHON}" -m aot board-sources "${board}"
                            --port-dir "${port_dir}"
                    RESULT_VARIABLE rc OUTPUT_VARIABLE json ERROR_VARIABLE err)
    if(NOT rc EQUAL 0)
        string(STRIP "${err}" err)
        message(FATAL_ERROR "Mote: ${err}")
    endif()
    set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS "${MOTE_ROOT}/boards/${board}.json")
    set_property(GLOBAL PROPERTY "MOTE_BOARD_${id}_port_dir" "${port_dir}")
    string(JSON qemu ERROR_VARIABLE no_qemu GET "${json}" qemu_machine)
    if(no_qemu OR qemu STREQUAL "null")
        set(qemu "")
    endif()
    set_property(GLOBAL PROPERTY "MOTE_BOARD_${id}_qemu_machine" "${qemu}")
    string(JSON sim ERROR_VARIABLE no_sim GET "${json}" simulator)
    if(no_sim OR sim STREQUAL "null")
        set(sim "")
    endif()
    set_property(GLOBAL PROPERTY "MOTE_BOARD_${id}_simulator" "${sim}")
    _mote_check_compiler("${board}" "${json}")
    foreach(key runtime_sources embed_sources kernel_sources include_dirs arch_flags)
        _mote_json_list(list "${json}" ${key})
        set_property(GLOBAL PROPERTY "MOTE_BOARD_${id}_${key}" "${list}")
    endforeach()
    string(JSON st GET "${json}" embed_selftest_source)
    set_property(GLOBAL PROPERTY "MOTE_BOARD_${id}_embed_selftest_source" "${st}")
    foreach(key sources include_dirs ldflags)
        _mote_json_list(list "${json}" port ${key})
        set_property(GLOBAL PROPERTY "MOTE_BOARD_${id}_port_${key}" "${list}")
    endforeach()
    string(JSON uf2 ERROR_VARIABLE no_uf2 GET "${json}" port uf2_family_id)
    if(no_uf2 OR uf2 STREQUAL "null")
        set(uf2 "")
    endif()
    set_property(GLOBAL PROPERTY "MOTE_BOARD_${id}_uf2_family_id" "${uf2}")
    set_property(GLOBAL PROPERTY "MOTE_BOARD_${id}_LOADED" TRUE)
endfunction()

# Mote's boards are Cortex-M parts: the C compiler must be an Arm cross
# compiler (a forgotten toolchain file is caught here, not by the assembler),
# and a -mcpu in CMAKE_C_FLAGS other than the board's draws a warning.
function(_mote_check_compiler board json)
    execute_process(COMMAND "${CMAKE_C_COMPILER}" -dumpmachine OUTPUT_VARIABLE machine
                    OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET RESULT_VARIABLE rc)
    if(rc EQUAL 0 AND NOT machine MATCHES "^(arm|thumb)")
        message(FATAL_ERROR "Mote: BOARD ${board} is a Cortex-M board, but the C compiler "
                "${CMAKE_C_COMPILER} builds for ${machine}: give an Arm toolchain file "
                "(-DCMAKE_TOOLCHAIN_FILE=..., e.g. examples/cmake/arm-none-eabi-m33.cmake)")
    endif()
    _mote_json_list(arch "${json}" arch_flags)
    foreach(flag IN LISTS arch)
        if(flag MATCHES "^-mcpu=" AND CMAKE_C_FLAGS MATCHES "-mcpu=([^ ]+)" AND NOT "-mcpu=${CMAKE_MATCH_1}" STREQUAL flag)
            message(WARNING "Mote: CMAKE_C_FLAGS has -mcpu=${CMAKE_MATCH_1}, board ${board} is ${flag} "
                    "(its flags: ${arch}); the runtime state is sized for the board's ABI")
        endif()
    endforeach()
endfunction()

# A JSON array of strings (at the path given by the extra arguments) as a CMake list.
function(_mote_json_list out json)
    string(JSON n LENGTH "${json}" ${ARGN})
    set(items "")
    if(n GREATER 0)
        math(EXPR last "${n} - 1")
        foreach(i RANGE ${last})
            string(JSON item GET "${json}" ${ARGN} ${i})
            list(APPEND items "${item}")
        endforeach()
    endif()
    set(${out} "${items}" PARENT_SCOPE)
endfunction()

function(_mote_get out id key)
    get_property(v GLOBAL PROPERTY "MOTE_BOARD_${id}_${key}")
    set(${out} "${v}" PARENT_SCOPE)
endfunction()

# mote_<id>: the runtime and every kernel for the board, one static library
# (an archive: the link takes only the members the registry and the
# embedding API reference).
function(_mote_board_library board id no_default_flags)
    if(TARGET mote_${id})
        return()
    endif()
    _mote_get(runtime ${id} runtime_sources)
    _mote_get(kernels ${id} kernel_sources)
    _mote_get(incs ${id} include_dirs)
    add_library(mote_${id} STATIC ${runtime} ${kernels})
    target_include_directories(mote_${id} PUBLIC ${incs})
    set_target_properties(mote_${id} PROPERTIES C_STANDARD 99 C_STANDARD_REQUIRED ON C_EXTENSIONS OFF)
    target_compile_definitions(mote_${id} PRIVATE NDEBUG)
    if(no_default_flags)
        # The caller's build (Zephyr) brings its own flags, optimisation and libc.
        return()
    endif()
    if(CMAKE_C_COMPILER_ID MATCHES "GNU|Clang")
        # -O2 for the kernels unless the build type says otherwise (they are the hot loop).
        target_compile_options(mote_${id} PRIVATE -ffunction-sections -fdata-sections
                               -Wall -Wextra -Wpedantic -Wmissing-prototypes -Werror
                               $<$<CONFIG:>:-O2>)
        target_link_libraries(mote_${id} INTERFACE m)  # expf/tanhf/logf of the fp32 kernels
    endif()
endfunction()

# mote_model_sources(<prefix> MODEL f [NAME n] BOARD b [INT8] [INT8_IO] [CALIB f] [SELFTEST n]
#                    [VERIFY_CHECKSUM] [DSP_WEIGHTS flash|arena] [NO_DEFAULT_FLAGS]
#                    [DEPENDS f...] [OUTPUT_DIR d] [OPTIONS opt...])
# mote_model_sources(<prefix> MODELS [name=]f [name=]f... BOARD b [MEMORY shared|separate] ...)
# The build step and what it gives, without attaching them to a target (the
# Zephyr module uses this): sets <prefix>_SOURCES (generated + embedding API),
# <prefix>_INCLUDE_DIRS, <prefix>_DEFINITIONS, <prefix>_LIBRARY (mote_<board>),
# <prefix>_KERNEL_SOURCES (the library's kernel files, worth -O2),
# <prefix>_OUTPUT_DIR, <prefix>_BOARD_ID and <prefix>_GENERATED (the custom
# command's outputs). NO_DEFAULT_FLAGS: mote_<board> gets no compile options
# (-Werror, -O2 without a build type) and no libm of its own, for a build
# system that sets them (the first call for a board decides).
#
# Several models (MODELS with more than one, or a name: NAME, name=f): one
# `aot generate name=f ... --memory M` of them all (one registry: the union of
# their operators; one recipe: the options apply to every model), each model's
# API mote_model_<name>_* in OUT/mote_model_<name>.h, every one in
# OUT/mote_models.h; <prefix>_MODELS is the names (empty for one model
# without a name: today's mote_model_* API) and <prefix>_MEMORY the mode.
function(mote_model_sources prefix)
    cmake_parse_arguments(M "INT8;INT8_IO;VERIFY_CHECKSUM;NO_DEFAULT_FLAGS"
                          "MODEL;NAME;BOARD;CALIB;SELFTEST;OUTPUT_DIR;DSP_WEIGHTS;MEMORY" "MODELS;DEPENDS;OPTIONS" ${ARGN})
    if((NOT M_MODEL AND NOT M_MODELS) OR NOT M_BOARD)
        message(FATAL_ERROR "mote_model_sources(${prefix}): MODEL (or MODELS) and BOARD are required")
    endif()
    if(M_MODEL AND M_MODELS)
        message(FATAL_ERROR "mote_model_sources(${prefix}): give MODEL (one model) or MODELS (several), not both")
    endif()
    if(M_MODEL)
        set(items "${M_MODEL}")
        if(M_NAME)
            set(items "${M_NAME}=${M_MODEL}")
        endif()
    else()
        set(items ${M_MODELS})
    endif()
    # aot generate's MODEL arguments, each path absolute ([name=]path: aot checks the names)
    set(model_args "")
    set(models "")
    foreach(item IN LISTS items)
        get_filename_component(model "${item}" ABSOLUTE)
        set(arg "${model}")
        if(NOT EXISTS "${model}" AND item MATCHES "^([^=/]*)=(.+)$")
            get_filename_component(model "${CMAKE_MATCH_2}" ABSOLUTE)
            set(arg "${CMAKE_MATCH_1}=${model}")
        endif()
        if(NOT EXISTS "${model}")
            message(FATAL_ERROR "Mote: model file ${model} not found")
        endif()
        list(APPEND model_args "${arg}")
        list(APPEND models "${model}")
    endforeach()
    string(MAKE_C_IDENTIFIER "${M_BOARD}" id)
    _mote_board_sources("${M_BOARD}" ${id})
    _mote_board_library("${M_BOARD}" ${id} "${M_NO_DEFAULT_FLAGS}")
    if(NOT M_OUTPUT_DIR)
        set(M_OUTPUT_DIR "${CMAKE_CURRENT_BINARY_DIR}/mote/${prefix}")
    endif()
    get_filename_component(out "${M_OUTPUT_DIR}" ABSOLUTE)

    # The keywords are aot generate options; OPTIONS are more of them, as the command line
    # spells them (--int4-weights, --int16-activations, --external-weights, ...). aot
    # parses them all into one Recipe: checked here, at configure time (a bad combination
    # is one line), which also says which files the generate writes.
    set(options "")
    set(deps "${MOTE_ROOT}/boards/${M_BOARD}.json")
    list(PREPEND deps ${models})
    if(M_INT8)
        list(APPEND options --int8)
    endif()
    if(M_INT8_IO)
        list(APPEND options --int8-io)
    endif()
    if(M_CALIB)
        get_filename_component(calib "${M_CALIB}" ABSOLUTE)
        list(APPEND options --calib "${calib}")
    endif()
    if(M_VERIFY_CHECKSUM)
        list(APPEND options --verify-checksum)
    endif()
    if(M_DSP_WEIGHTS)  # aot generate --dsp-weights: flash (default on DSP boards) or arena
        list(APPEND options --dsp-weights "${M_DSP_WEIGHTS}")
    endif()
    if(M_SELFTEST)
        list(APPEND options --selftest ${M_SELFTEST})
    endif()
    if(M_MEMORY)  # several models: shared (aot's default) or separate
        list(APPEND options --memory "${M_MEMORY}")
    endif()
    list(APPEND options ${M_OPTIONS})
    set(args generate ${model_args} --board "${M_BOARD}" ${options})
    # relative paths in OPTIONS (--calib) are relative to this source folder, as MODEL is
    execute_process(COMMAND "${CMAKE_COMMAND}" -E env "PYTHONPATH=${MOTE_ROOT}" "${MOTE_PYTHON}" -m aot
                            ${args} --dry-run --json
                    WORKING_DIRECTORY "${CMAKE_CURRENT_SOURCE_DIR}"
                    RESULT_VARIABLE rc OUTPUT_VARIABLE plan ERROR_VARIABLE err)
    if(NOT rc EQUAL 0)
        string(STRIP "${err}" err)
        message(FATAL_ERROR "Mote: ${err}")
    endif()
    _mote_json_list(gen_sources "${plan}" generated_sources)
    _mote_json_list(gen_headers "${plan}" generated_headers)
    _mote_json_list(plan_deps "${plan}" depends)
    list(APPEND deps ${plan_deps})
    string(JSON selftest GET "${plan}" recipe selftest)
    string(JSON verify GET "${plan}" recipe verify_checksum)
    # several models: the plan names them (aot's names: NAME, or the file's stem)
    set(names "")
    set(memory "")
    string(JSON n_models ERROR_VARIABLE one_model LENGTH "${plan}" models)
    if(NOT one_model)
        math(EXPR last "${n_models} - 1")
        foreach(i RANGE ${last})
            string(JSON name GET "${plan}" models ${i} name)
            list(APPEND names "${name}")
        endforeach()
        string(JSON memory GET "${plan}" memory)
    endif()
    list(APPEND args -o "${out}")
    set(sources "")
    foreach(f IN LISTS gen_sources)
        list(APPEND sources "${out}/${f}")
    endforeach()
    set(headers "")
    foreach(f IN LISTS gen_headers)
        list(APPEND headers "${out}/${f}")
    endforeach()
    set(generated ${sources} ${headers} "${out}/mote_sources.json")
    _mote_get(embed ${id} embed_sources)
    if(names)
        # runtime/embed/mote_model.c (and mote_model_selftest.c) are compiled once per model
        # through the generated wrappers <name>/mote_embed_<name>.c, not as they are
        list(REMOVE_ITEM embed "${MOTE_ROOT}/runtime/embed/mote_model.c")
    elseif(NOT selftest STREQUAL "null")
        _mote_get(st ${id} embed_selftest_source)
        list(APPEND embed "${st}")
    endif()
    # Modules beside the model file are what it usually imports (PlatformIO hashes them too).
    foreach(model IN LISTS models)
        get_filename_component(model_dir "${model}" DIRECTORY)
        file(GLOB siblings "${model_dir}/*.py")
        list(APPEND deps ${siblings})
    endforeach()
    foreach(d IN LISTS M_DEPENDS)
        get_filename_component(d "${d}" ABSOLUTE)
        list(APPEND deps "${d}")
    endforeach()
    list(REMOVE_DUPLICATES deps)
    # The compiler's own sources: a new Mote re-generates the model.
    file(GLOB_RECURSE compiler_sources "${MOTE_ROOT}/aot/*.py")
    list(APPEND deps ${compiler_sources} "${MOTE_ROOT}/kernels/gen_registry.py")

    set(what "")
    foreach(model IN LISTS models)
        get_filename_component(model_name "${model}" NAME)
        list(APPEND what "${model_name}")
    endforeach()
    list(JOIN what ", " what)
    if(names)
        list(JOIN names ", " joined)
        string(APPEND what " (models ${joined}, --memory ${memory})")
    endif()
    add_custom_command(
        OUTPUT ${generated}
        COMMAND "${CMAKE_COMMAND}" -E env "PYTHONPATH=${MOTE_ROOT}" "${MOTE_PYTHON}" -m aot ${args}
        WORKING_DIRECTORY "${CMAKE_CURRENT_SOURCE_DIR}"
        DEPENDS ${deps}
        COMMENT "Mote: aot generate ${what} for ${M_BOARD}"
        VERBATIM)

    list(APPEND sources ${embed})
    set(defs "")
    if(verify)
        list(APPEND defs MOTE_VERIFY_CHECKSUM)
    endif()
    _mote_get(incs ${id} include_dirs)
    set(${prefix}_SOURCES ${sources} ${headers} PARENT_SCOPE)
    set(${prefix}_INCLUDE_DIRS "${out}" ${incs} PARENT_SCOPE)
    set(${prefix}_DEFINITIONS ${defs} PARENT_SCOPE)
    set(${prefix}_LIBRARY mote_${id} PARENT_SCOPE)
    _mote_get(kernels ${id} kernel_sources)
    set(${prefix}_KERNEL_SOURCES ${kernels} PARENT_SCOPE)
    set(${prefix}_OUTPUT_DIR "${out}" PARENT_SCOPE)
    set(${prefix}_BOARD_ID ${id} PARENT_SCOPE)
    set(${prefix}_BOARD "${M_BOARD}" PARENT_SCOPE)
    set(${prefix}_GENERATED ${generated} PARENT_SCOPE)
    set(${prefix}_MODELS ${names} PARENT_SCOPE)
    set(${prefix}_MEMORY "${memory}" PARENT_SCOPE)
endfunction()

# mote_add_model(<target> MODEL f [NAME n] BOARD b [MEMORY shared|separate] [INT8] [INT8_IO]
#                [CALIB f] [SELFTEST n] [VERIFY_CHECKSUM] [DSP_WEIGHTS flash|arena] [PORT]
#                [DEPENDS f...] [OUTPUT_DIR d] [OPTIONS opt...])
#
# Called more than once on a target (or with a NAME), the target's models are
# generated together, by one `aot generate` at the end of the directory (one
# registry, the union of their operators): model <name> (NAME, default the
# file's stem as a C identifier) has the API mote_model_<name>_* of
# "mote_model_<name>.h"; "mote_models.h" includes them all. MEMORY: shared (the
# default: one activation arena sized by the largest plan, models run one at a
# time) or separate (each model its own arena: two threads may run two models).
# One recipe per aot generate: BOARD and the build options (INT8, INT8_IO, CALIB,
# SELFTEST, VERIFY_CHECKSUM, DSP_WEIGHTS, OPTIONS, NO_DEFAULT_FLAGS) must be the
# same in every call on the target; PORT, MEMORY and OUTPUT_DIR may be given in
# any one of them. One call without NAME is the one-model build (mote_model_*).
function(mote_add_model target)
    if(NOT TARGET ${target})
        message(FATAL_ERROR "mote_add_model: ${target} is not a target (add_executable/add_library it first)")
    endif()
    cmake_parse_arguments(A "PORT" "MODEL;NAME;OUTPUT_DIR;MEMORY;CALIB" "DEPENDS" ${ARGN})
    if(NOT A_MODEL)
        message(FATAL_ERROR "mote_add_model(${target}): MODEL is required")
    endif()
    get_filename_component(model "${A_MODEL}" ABSOLUTE)
    if(NOT EXISTS "${model}")
        message(FATAL_ERROR "Mote: model file ${model} not found")
    endif()
    set(key "MOTE_TARGET_${target}")
    get_property(done GLOBAL PROPERTY "${key}_DONE")
    if(done)
        message(FATAL_ERROR "mote_add_model(${target} MODEL ${A_MODEL}): ${target}'s models were already "
                "generated at the end of ${done}: call mote_add_model for one target in one directory")
    endif()
    get_property(calls GLOBAL PROPERTY "${key}_N")
    if(NOT calls)
        set(calls 0)
        # the last call of the directory is not known yet: the models are added at its end
        # (a deferred call's arguments are evaluated when it runs: the name goes in as text)
        cmake_language(EVAL CODE "cmake_language(DEFER CALL _mote_add_models [==[${target}]==])")
    endif()
    # paths relative to the calling folder are made absolute now
    set(rest ${A_UNPARSED_ARGUMENTS})
    if(A_CALIB)
        get_filename_component(calib "${A_CALIB}" ABSOLUTE)
        list(APPEND rest CALIB "${calib}")
    endif()
    set(deps "")
    foreach(d IN LISTS A_DEPENDS)
        get_filename_component(d "${d}" ABSOLUTE)
        list(APPEND deps "${d}")
    endforeach()
    foreach(field MODEL NAME OUTPUT_DIR MEMORY PORT)
        set_property(GLOBAL PROPERTY "${key}_${calls}_${field}" "${A_${field}}")
    endforeach()
    set_property(GLOBAL PROPERTY "${key}_${calls}_MODEL" "${model}")
    set_property(GLOBAL PROPERTY "${key}_${calls}_DEPENDS" "${deps}")
    set_property(GLOBAL PROPERTY "${key}_${calls}_REST" "${rest}")
    math(EXPR calls "${calls} + 1")
    set_property(GLOBAL PROPERTY "${key}_N" ${calls})
endfunction()

# At the end of the directory of mote_add_model(<target> ...): the target's models,
# checked to agree, generated by one mote_model_sources() and attached to it.
function(_mote_add_models target)
    set(key "MOTE_TARGET_${target}")
    set_property(GLOBAL PROPERTY "${key}_DONE" "${CMAKE_CURRENT_SOURCE_DIR}")
    get_property(calls GLOBAL PROPERTY "${key}_N")
    math(EXPR last "${calls} - 1")
    # what must agree: the recipe (one aot generate) and the target's own options
    set(flags INT8 INT8_IO VERIFY_CHECKSUM NO_DEFAULT_FLAGS)
    set(values BOARD CALIB SELFTEST DSP_WEIGHTS)
    set(lists OPTIONS)
    set(items "")
    set(deps "")
    set(port OFF)
    foreach(field OUTPUT_DIR MEMORY)
        set(t_${field} "")
        set(t_${field}_from "")
    endforeach()
    foreach(i RANGE ${last})
        foreach(field MODEL NAME OUTPUT_DIR MEMORY PORT DEPENDS REST)
            get_property(c_${field} GLOBAL PROPERTY "${key}_${i}_${field}")
        endforeach()
        get_filename_component(label "${c_MODEL}" NAME)
        if(c_NAME)
            set(label "${c_NAME} (${label})")
            list(APPEND items "${c_NAME}=${c_MODEL}")
        else()
            list(APPEND items "${c_MODEL}")
        endif()
        list(APPEND deps ${c_DEPENDS})
        if(c_PORT)
            set(port ON)
        endif()
        foreach(field OUTPUT_DIR MEMORY)
            if(NOT c_${field} STREQUAL "")
                if(NOT t_${field} STREQUAL "" AND NOT t_${field} STREQUAL c_${field})
                    message(FATAL_ERROR "Mote: mote_add_model(${target}): ${field} differs between the models of "
                            "${target} (${t_${field}_from}: ${t_${field}}, ${label}: ${c_${field}}): it is the "
                            "target's, give it once")
                endif()
                set(t_${field} "${c_${field}}")
                set(t_${field}_from "${label}")
            endif()
        endforeach()
        cmake_parse_arguments(C "${flags}" "${values}" "${lists}" ${c_REST})
        if(i EQUAL 0)
            set(rest ${c_REST})
            set(first "${label}")
            foreach(field IN LISTS flags values lists)
                set(r_${field} "${C_${field}}")
            endforeach()
        else()
            foreach(field IN LISTS flags values lists)
                if(NOT "${C_${field}}" STREQUAL "${r_${field}}")
                    set(a "${r_${field}}")
                    set(b "${C_${field}}")
                    foreach(v a b)
                        if(field IN_LIST flags)
                            if(${${v}})
                                set(${v} "${field}")
                            else()
                                set(${v} "no ${field}")
                            endif()
                        elseif("${${v}}" STREQUAL "")
                            set(${v} "not given")
                        endif()
                    endforeach()
                    message(FATAL_ERROR "Mote: mote_add_model(${target}): ${field} differs between the models of "
                            "${target} (${first}: ${a}, ${label}: ${b}): one aot generate compiles a target's "
                            "models with one recipe, give every mote_add_model(${target} ...) call the same "
                            "BOARD and build options (or put the models in two targets)")
                endif()
            endforeach()
        endif()
    endforeach()
    if(NOT t_OUTPUT_DIR)
        set(t_OUTPUT_DIR "${CMAKE_CURRENT_BINARY_DIR}/mote/${target}")
    endif()
    set(memory "")
    if(t_MEMORY)
        set(memory MEMORY "${t_MEMORY}")
    endif()
    if(calls EQUAL 1)
        get_property(name GLOBAL PROPERTY "${key}_0_NAME")
        set(what MODEL "${c_MODEL}")
        if(name)
            list(APPEND what NAME "${name}")
        endif()
    else()
        set(what MODELS ${items})
    endif()
    mote_model_sources(_mote ${what} ${rest} ${memory} DEPENDS ${deps} OUTPUT_DIR "${t_OUTPUT_DIR}")
    _mote_attach(${target} ${port})
endfunction()

# The sources mote_model_sources(_mote ...) gave (in the caller's scope) attached to
# <target>; port: also Mote's bare-metal port and the board's linker script.
function(_mote_attach target port)
    set(id ${_mote_BOARD_ID})
    set(out ${_mote_OUTPUT_DIR})
    target_sources(${target} PRIVATE ${_mote_SOURCES})
    target_include_directories(${target} PRIVATE ${_mote_INCLUDE_DIRS})
    target_compile_definitions(${target} PRIVATE ${_mote_DEFINITIONS})
    target_link_libraries(${target} PRIVATE ${_mote_LIBRARY})
    if(port)
        get_property(langs GLOBAL PROPERTY ENABLED_LANGUAGES)
        if(NOT "ASM" IN_LIST langs)
            message(FATAL_ERROR "mote_add_model(${target} ... PORT): Mote's port has an assembler "
                    "vector table: enable ASM in your project, project(<name> C ASM)")
        endif()
        _mote_get(psrc ${id} port_sources)
        _mote_get(pinc ${id} port_include_dirs)
        _mote_get(pld ${id} port_ldflags)
        _mote_get(pdir ${id} port_dir)
        if(EXISTS "${pdir}/boot2_image.S")
            list(APPEND psrc "${pdir}/boot2_image.S")
        endif()
        target_sources(${target} PRIVATE ${psrc})
        target_include_directories(${target} PRIVATE "${pdir}" ${pinc})
        target_link_options(${target} PRIVATE ${pld} "-T${pdir}/firmware.ld")
        set_property(TARGET ${target} APPEND PROPERTY LINK_DEPENDS "${pdir}/firmware.ld")
        _mote_get(uf2 ${id} uf2_family_id)
        if(uf2)
            # A board flashed as a UF2 (pico, pico2): <target>.uf2 beside the ELF after every
            # link, made by `aot uf2` (the ELF->UF2 path of `aot build`'s firmware.uf2).
            add_custom_command(TARGET ${target} POST_BUILD
                COMMAND "${CMAKE_COMMAND}" -E env "PYTHONPATH=${MOTE_ROOT}" "${MOTE_PYTHON}" -m aot uf2
                        "$<TARGET_FILE:${target}>" --board "${_mote_BOARD}"
                        -o "$<TARGET_FILE_DIR:${target}>/$<TARGET_FILE_BASE_NAME:${target}>.uf2"
                COMMENT "Mote: ${target}.uf2 for ${_mote_BOARD} (aot uf2, UF2 family ${uf2})"
                VERBATIM)
        endif()
    endif()
    if(_mote_MODELS)
        list(JOIN _mote_MODELS ", " names)
        message(STATUS "Mote: ${target}: models ${names} compiled at build time by one aot generate "
                "(--memory ${_mote_MEMORY}) into ${out}")
    else()
        message(STATUS "Mote: ${target}: model compiled at build time by aot generate into ${out}")
    endif()
endfunction()

# mote_add_qemu_run(<target> BOARD b [TIMEOUT s]): a `<target>-run` target that
# runs the firmware in the board's QEMU machine and shows its UART
# (`aot qemu`; exit status = the firmware's). The pico runs on rp2040js from
# the UF2 beside the ELF (the post-build step's; `aot qemu` writes it if missing),
# TIMEOUT then being simulated seconds.
function(mote_add_qemu_run target)
    cmake_parse_arguments(R "" "BOARD;TIMEOUT" "" ${ARGN})
    if(NOT R_TIMEOUT)
        set(R_TIMEOUT 60)
    endif()
    string(MAKE_C_IDENTIFIER "${R_BOARD}" id)
    _mote_board_sources("${R_BOARD}" ${id})
    _mote_get(machine ${id} qemu_machine)
    _mote_get(sim ${id} simulator)
    if(NOT machine AND NOT sim STREQUAL "rp2040js")
        message(FATAL_ERROR "mote_add_qemu_run(${target} BOARD ${R_BOARD}): board ${R_BOARD} has no QEMU "
                "machine (boards/${R_BOARD}.json names no simulator): run it on the board (aot flash, aot monitor)")
    endif()
    if(machine)
        set(where "in QEMU (${machine})")
    else()
        set(where "on ${sim}")
    endif()
    add_custom_target(${target}-run
        COMMAND "${CMAKE_COMMAND}" -E env "PYTHONPATH=${MOTE_ROOT}" "${MOTE_PYTHON}" -m aot qemu
                "$<TARGET_FILE:${target}>" --board "${R_BOARD}" --timeout ${R_TIMEOUT}
        DEPENDS ${target} USES_TERMINAL VERBATIM
        COMMENT "Mote: running ${target} on ${R_BOARD} ${where}")
endfunction()
