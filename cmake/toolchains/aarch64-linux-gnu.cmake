# Cross-compiling the runtime, kernels, libmote.so and mote-run for 64-bit Arm
# Linux with Debian's cross toolchain (apt: gcc-aarch64-linux-gnu):
#   cmake -S . -B build/linux-aarch64 \
#         -DCMAKE_TOOLCHAIN_FILE=cmake/toolchains/aarch64-linux-gnu.cmake
# The binaries run on an aarch64 board, or here under qemu-user
# (apt: qemu-user): qemu-aarch64 -L /usr/aarch64-linux-gnu build/linux-aarch64/ports/linux/mote-run ...
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)
set(MOTE_CROSS_TRIPLE aarch64-linux-gnu)
set(CMAKE_C_COMPILER ${MOTE_CROSS_TRIPLE}-gcc)
set(CMAKE_CXX_COMPILER ${MOTE_CROSS_TRIPLE}-g++)
# the target's root (libc, loader) for find_* and for qemu-user's -L
set(CMAKE_FIND_ROOT_PATH /usr/${MOTE_CROSS_TRIPLE})
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_CROSSCOMPILING_EMULATOR qemu-aarch64;-L;/usr/${MOTE_CROSS_TRIPLE})

# Debian's arm64 libxnnpack-dev (and what libXNNPACK.so needs) unpacked outside
# the cross sysroot by scripts/bootstrap.sh (Multi-Arch forbids installing it
# beside the amd64 one): found here, the XNNPACK backend is cross-built too.
set(MOTE_AARCH64_LIBS "${CMAKE_CURRENT_LIST_DIR}/../../build/sysroot-aarch64" CACHE PATH
    "Extra arm64 libraries (usr/include, usr/lib/aarch64-linux-gnu)")
if(EXISTS "${MOTE_AARCH64_LIBS}/usr/include/xnnpack.h")
    list(APPEND CMAKE_FIND_ROOT_PATH "${MOTE_AARCH64_LIBS}")
    set(CMAKE_SHARED_LINKER_FLAGS_INIT "-Wl,-rpath-link,${MOTE_AARCH64_LIBS}/usr/lib/${MOTE_CROSS_TRIPLE}")
    set(CMAKE_EXE_LINKER_FLAGS_INIT "-Wl,-rpath-link,${MOTE_AARCH64_LIBS}/usr/lib/${MOTE_CROSS_TRIPLE}")
endif()
