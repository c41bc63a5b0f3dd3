"""Mote's local PlatformIO platform: Cortex-M boards simulated by QEMU.

Everything the platform does lives in builder/main.py; this class only exists
because PlatformIO looks for one named after the platform ("mote-qemu").
"""
from platformio.public import PlatformBase


class MoteqemuPlatform(PlatformBase):
    pass
