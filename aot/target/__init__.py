"""Renamed :mod:`aot.deploy` (boards, firmware builds, simulators, flashing, serial).

Only the two ``python -m`` entry points build systems called stay here, for one
release: ``python -m aot.target.generate`` (now ``aot board-sources``) and
``python -m aot.target.qemu`` (now ``aot qemu``).
"""
