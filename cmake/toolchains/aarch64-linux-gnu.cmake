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
