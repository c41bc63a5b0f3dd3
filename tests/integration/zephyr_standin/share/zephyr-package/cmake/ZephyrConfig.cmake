# STAND-IN for Zephyr's CMake package, not Zephyr's code (see
# tests/integration/zephyr_standin/README.md). find_package(Zephyr) finds this
# file the way it finds Zephyr's: HINTS $ENV{ZEPHYR_BASE} (set ZEPHYR_BASE to
# the stand-in folder), Zephyr_DIR, or CMAKE_PREFIX_PATH.
#
# It does, minimally, what an application and a module see of Zephyr's build:
#   - BOARD (a board target of ../../../boards.json), CONF_FILE (default
#     prj.conf) plus boards/<normalized board target>.conf of the application,
#     EXTRA_CONF_FILE; ZEPHYR_MODULES / EXTRA_ZEPHYR_MODULES (module folders)
#   - Kconfig through kconfiglib (scripts/standin_kconfig.py): CONFIG_*
#     variables, autoconf.h (passed with -imacros, as Zephyr does)
#   - the arm-none-eabi toolchain with Zephyr's -mcpu choice from Kconfig
#     (CPU_CORTEX_M33 + ARMV8_M_DSP -> cortex-m33, without -> cortex-m33+nodsp;
#     Cortex-M55: +nomve.fp / +nomve / +nodsp by ARMV8_1_M_MVEF/MVEI/ARMV8_M_DSP)
#   - the zephyr_interface target, the `app` library, and the functions
#     zephyr_library(), zephyr_library_named(), zephyr_append_cmake_library(),
#     zephyr_library_sources(),
#     zephyr_library_sources_ifdef(), zephyr_include_directories(),
#     zephyr_library_include_directories(), zephyr_library_compile_definitions(),
#     zephyr_library_compile_options(), zephyr_compile_definitions(),
#     zephyr_compile_options(), zephyr_linker_sources()
#   - each module's CMakeLists.txt, added with ZEPHYR_<NAME>_MODULE_DIR,
#     ZEPHYR_CURRENT_MODULE_DIR/NAME/CMAKE_DIR set
# It compiles; it links nothing (no kernel exists). After configure,
# zephyr/standin_libraries.txt lists every library's archive and
# zephyr/standin_arch_flags.txt the architecture flags.
include_guard(GLOBAL)

get_filename_component(ZEPHYR_STANDIN_DIR "${CMAKE_CURRENT_LIST_DIR}/../../.." ABSOLUTE)
set(ZEPHYR_BASE ${ZEPHYR_STANDIN_DIR})
set(ZEPHYR_STANDIN TRUE)

if(NOT BOARD)
  if(DEFINED ENV{BOARD})
    set(BOARD $ENV{BOARD})
  else()
    message(FATAL_ERROR "stand-in: set BOARD (-DBOARD=rpi_pico2/rp2350a/m33, ...)")
  endif()
endif()
set(BOARD ${BOARD} CACHE STRING "Zephyr board target (stand-in)")
string(REPLACE "/" "_" NORMALIZED_BOARD_TARGET "${BOARD}")

set(APPLICATION_SOURCE_DIR ${CMAKE_CURRENT_SOURCE_DIR})
set(APPLICATION_BINARY_DIR ${CMAKE_CURRENT_BINARY_DIR})
set(ZEPHYR_BINARY_DIR ${CMAKE_CURRENT_BINARY_DIR}/zephyr)
set(PROJECT_BINARY_DIR ${ZEPHYR_BINARY_DIR})

# ---- Python (Zephyr's build sets Python3_EXECUTABLE too)
if(NOT Python3_EXECUTABLE)
  find_package(Python3 REQUIRED COMPONENTS Interpreter)
endif()
set(PYTHON_EXECUTABLE ${Python3_EXECUTABLE})

# ---- configuration fragments: the application's, then its board's, then extras
if(NOT CONF_FILE)
  set(CONF_FILE ${APPLICATION_SOURCE_DIR}/prj.conf)
endif()
set(_standin_confs)
foreach(f ${CONF_FILE})
  get_filename_component(f "${f}" ABSOLUTE BASE_DIR ${APPLICATION_SOURCE_DIR})
  list(APPEND _standin_confs ${f})
endforeach()
if(EXISTS ${APPLICATION_SOURCE_DIR}/boards/${NORMALIZED_BOARD_TARGET}.conf)
  list(APPEND _standin_confs ${APPLICATION_SOURCE_DIR}/boards/${NORMALIZED_BOARD_TARGET}.conf)
endif()
foreach(f ${EXTRA_CONF_FILE})
  get_filename_component(f "${f}" ABSOLUTE BASE_DIR ${APPLICATION_SOURCE_DIR})
  list(APPEND _standin_confs ${f})
endforeach()

# ---- modules and Kconfig
set(_standin_args --board ${BOARD} --out ${ZEPHYR_BINARY_DIR})
foreach(f ${_standin_confs})
  list(APPEND _standin_args --conf ${f})
endforeach()
foreach(m ${ZEPHYR_MODULES} ${EXTRA_ZEPHYR_MODULES})
  list(APPEND _standin_args --module ${m})
endforeach()
execute_process(
  COMMAND ${Python3_EXECUTABLE} ${ZEPHYR_STANDIN_DIR}/scripts/standin_kconfig.py ${_standin_args}
  RESULT_VARIABLE _standin_rc)
if(NOT _standin_rc EQUAL 0)
  message(FATAL_ERROR "stand-in: Kconfig failed (see above)")
endif()
include(${ZEPHYR_BINARY_DIR}/modules.cmake)
include(${ZEPHYR_BINARY_DIR}/config.cmake)
set(AUTOCONF_H ${ZEPHYR_BINARY_DIR}/include/generated/zephyr/autoconf.h)
set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS
  ${_standin_confs} ${ZEPHYR_STANDIN_KCONFIG_FILES} ${ZEPHYR_STANDIN_DIR}/boards.json)

# ---- toolchain: arm-none-eabi-gcc, -mcpu from Kconfig as Zephyr chooses it
set(CMAKE_SYSTEM_NAME Generic)
set(CMAKE_SYSTEM_PROCESSOR arm)
set(CMAKE_C_COMPILER arm-none-eabi-gcc)
set(CMAKE_ASM_COMPILER arm-none-eabi-gcc)
set(CMAKE_TRY_COMPILE_TARGET_TYPE STATIC_LIBRARY)

if(CONFIG_CPU_CORTEX_M0)
  set(GCC_M_CPU cortex-m0)
elseif(CONFIG_CPU_CORTEX_M0PLUS)
  set(GCC_M_CPU cortex-m0plus)
elseif(CONFIG_CPU_CORTEX_M3)
  set(GCC_M_CPU cortex-m3)
elseif(CONFIG_CPU_CORTEX_M4)
  set(GCC_M_CPU cortex-m4)
elseif(CONFIG_CPU_CORTEX_M7)
  set(GCC_M_CPU cortex-m7)
elseif(CONFIG_CPU_CORTEX_M33)
  if(CONFIG_ARMV8_M_DSP)
    set(GCC_M_CPU cortex-m33)
  else()
    set(GCC_M_CPU cortex-m33+nodsp)
  endif()
elseif(CONFIG_CPU_CORTEX_M55)
  if(CONFIG_ARMV8_1_M_MVEF)
    set(GCC_M_CPU cortex-m55)
  elseif(CONFIG_ARMV8_1_M_MVEI)
    set(GCC_M_CPU cortex-m55+nomve.fp)
  elseif(CONFIG_ARMV8_M_DSP)
    set(GCC_M_CPU cortex-m55+nomve)
  else()
    set(GCC_M_CPU cortex-m55+nodsp)
  endif()
else()
  message(FATAL_ERROR "stand-in: no Cortex-M CPU in the configuration")
endif()
set(ZEPHYR_STANDIN_ARCH_FLAGS -mcpu=${GCC_M_CPU} -mthumb)
if(CONFIG_FPU)
  if(CONFIG_CPU_CORTEX_M4)
    list(APPEND ZEPHYR_STANDIN_ARCH_FLAGS -mfpu=fpv4-sp-d16)
  elseif(CONFIG_CPU_CORTEX_M55)
    list(APPEND ZEPHYR_STANDIN_ARCH_FLAGS -mfpu=auto)
  else()
    list(APPEND ZEPHYR_STANDIN_ARCH_FLAGS -mfpu=fpv5-sp-d16)
  endif()
  if(CONFIG_FP_SOFTABI)
    list(APPEND ZEPHYR_STANDIN_ARCH_FLAGS -mfloat-abi=softfp)
  else()
    list(APPEND ZEPHYR_STANDIN_ARCH_FLAGS -mfloat-abi=hard)
  endif()
else()
  list(APPEND ZEPHYR_STANDIN_ARCH_FLAGS -mfloat-abi=soft)
endif()

project(Zephyr-Kernel LANGUAGES C ASM)
string(REPLACE ";" "\n" _standin_flags "${ZEPHYR_STANDIN_ARCH_FLAGS}")
file(WRITE ${ZEPHYR_BINARY_DIR}/standin_arch_flags.txt "${_standin_flags}\n")

# ---- what every Zephyr source is compiled with (a small subset of Zephyr's flags)
add_library(zephyr_interface INTERFACE)
target_include_directories(zephyr_interface INTERFACE
  ${ZEPHYR_STANDIN_DIR}/include ${ZEPHYR_BINARY_DIR}/include/generated)
target_compile_options(zephyr_interface INTERFACE
  ${ZEPHYR_STANDIN_ARCH_FLAGS} -Os -g -ffunction-sections -fdata-sections
  -imacros ${AUTOCONF_H} -Wall -Wextra -Wno-unused-parameter -Werror)
target_compile_definitions(zephyr_interface INTERFACE __ZEPHYR__=1 KERNEL)

# ---- the functions a module's or an application's CMakeLists.txt calls
# Macros where Zephyr's are macros, so ZEPHYR_CURRENT_LIBRARY reaches the caller.
function(_zephyr_standin_abs out)
  set(r)
  foreach(p ${ARGN})
    if(p MATCHES "^\\$<" OR IS_ABSOLUTE "${p}")
      list(APPEND r "${p}")
    else()
      list(APPEND r "${CMAKE_CURRENT_SOURCE_DIR}/${p}")
    endif()
  endforeach()
  set(${out} ${r} PARENT_SCOPE)
endfunction()

function(zephyr_append_cmake_library name)
  set_property(GLOBAL APPEND PROPERTY ZEPHYR_LIBS ${name})
endfunction()

macro(zephyr_library_named name)
  set(ZEPHYR_CURRENT_LIBRARY ${name})
  add_library(${name} STATIC "")
  zephyr_append_cmake_library(${name})
  target_link_libraries(${name} PUBLIC zephyr_interface)
endmacro()

macro(zephyr_library)
  file(RELATIVE_PATH _standin_rel ${CMAKE_BINARY_DIR} ${CMAKE_CURRENT_BINARY_DIR})
  string(MAKE_C_IDENTIFIER "${_standin_rel}" _standin_name)
  string(REPLACE "_" "__" _standin_name "${_standin_name}")
  zephyr_library_named(${_standin_name})
endmacro()

function(_zephyr_standin_need_library what)
  if(NOT ZEPHYR_CURRENT_LIBRARY)
    message(FATAL_ERROR "stand-in: ${what}() before zephyr_library()")
  endif()
endfunction()

function(zephyr_library_sources)
  _zephyr_standin_need_library(zephyr_library_sources)
  _zephyr_standin_abs(srcs ${ARGN})
  target_sources(${ZEPHYR_CURRENT_LIBRARY} PRIVATE ${srcs})
endfunction()

function(zephyr_library_sources_ifdef feature)
  if(${feature})
    zephyr_library_sources(${ARGN})
  endif()
endfunction()

function(zephyr_library_include_directories)
  _zephyr_standin_need_library(zephyr_library_include_directories)
  _zephyr_standin_abs(dirs ${ARGN})
  target_include_directories(${ZEPHYR_CURRENT_LIBRARY} PRIVATE ${dirs})
endfunction()

function(zephyr_library_compile_definitions)
  _zephyr_standin_need_library(zephyr_library_compile_definitions)
  target_compile_definitions(${ZEPHYR_CURRENT_LIBRARY} PRIVATE ${ARGN})
endfunction()

function(zephyr_library_compile_options)
  _zephyr_standin_need_library(zephyr_library_compile_options)
  target_compile_options(${ZEPHYR_CURRENT_LIBRARY} PRIVATE ${ARGN})
endfunction()

function(zephyr_include_directories)
  _zephyr_standin_abs(dirs ${ARGN})
  target_include_directories(zephyr_interface INTERFACE ${dirs})
endfunction()

function(zephyr_compile_definitions)
  target_compile_definitions(zephyr_interface INTERFACE ${ARGN})
endfunction()

function(zephyr_compile_options)
  target_compile_options(zephyr_interface INTERFACE ${ARGN})
endfunction()

# zephyr_linker_sources(<location> [SORT_KEY <key>] <files>...): Zephyr pastes
# the files into its linker script at <location>; the stand-in, which links
# nothing, checks the location and that the files exist, and records them in
# zephyr/standin_linker_sources.txt.
function(zephyr_linker_sources location)
  set(known ROM_START ROM_SECTIONS RAM_SECTIONS DATA_SECTIONS RODATA SECTIONS
      PINNED_RODATA PINNED_RAM_SECTIONS PINNED_DATA_SECTIONS NOINIT RAMFUNC_SECTION
      NOCACHE_SECTION ITCM_SECTION DTCM_SECTION)
  if(NOT location IN_LIST known)
    message(FATAL_ERROR "stand-in: zephyr_linker_sources: unknown location ${location}")
  endif()
  cmake_parse_arguments(ARG "" "SORT_KEY" "" ${ARGN})
  _zephyr_standin_abs(files ${ARG_UNPARSED_ARGUMENTS})
  foreach(f ${files})
    if(NOT EXISTS ${f})
      message(FATAL_ERROR "stand-in: zephyr_linker_sources: no file ${f}")
    endif()
    file(APPEND ${ZEPHYR_BINARY_DIR}/standin_linker_sources.txt "${location} ${f}\n")
  endforeach()
endfunction()

# ---- the application's library (Zephyr makes it the same way, before the modules)
zephyr_library_named(app)
set(ZEPHYR_CURRENT_LIBRARY)

# ---- the modules, in order (Zephyr adds them from its own CMakeLists.txt,
# before the application's CMakeLists.txt continues)
file(REMOVE ${ZEPHYR_BINARY_DIR}/standin_linker_sources.txt)
foreach(ZEPHYR_CURRENT_MODULE_NAME ${ZEPHYR_STANDIN_MODULE_NAMES})
  string(MAKE_C_IDENTIFIER "${ZEPHYR_CURRENT_MODULE_NAME}" _standin_upper)
  string(TOUPPER "${_standin_upper}" _standin_upper)
  set(ZEPHYR_CURRENT_MODULE_DIR ${ZEPHYR_${_standin_upper}_MODULE_DIR})
  set(ZEPHYR_CURRENT_CMAKE_DIR ${ZEPHYR_${_standin_upper}_CMAKE_DIR})
  add_subdirectory(${ZEPHYR_CURRENT_CMAKE_DIR} ${ZEPHYR_BINARY_DIR}/modules/${ZEPHYR_CURRENT_MODULE_NAME})
endforeach()
set(ZEPHYR_CURRENT_MODULE_NAME)
set(ZEPHYR_CURRENT_MODULE_DIR)
set(ZEPHYR_CURRENT_CMAKE_DIR)

# ---- at the end of the application's CMakeLists.txt: the archives to link
function(_zephyr_standin_write_libraries)
  get_property(libs GLOBAL PROPERTY ZEPHYR_LIBS)
  set(lines "")
  foreach(l ${libs})
    string(APPEND lines "${l} $<TARGET_FILE:${l}>\n")
  endforeach()
  file(GENERATE OUTPUT ${ZEPHYR_BINARY_DIR}/standin_libraries.txt CONTENT "${lines}")
endfunction()
cmake_language(DEFER DIRECTORY ${CMAKE_SOURCE_DIR} CALL _zephyr_standin_write_libraries)
