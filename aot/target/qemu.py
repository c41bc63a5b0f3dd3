"""`python -m aot.target.qemu`: now `aot qemu ELF --board BOARD` (kept for one release)."""
import sys

if __name__ == "__main__":
    from aot.deploy.qemu import _main
    from aot.errors import note_moved_entry_point
    note_moved_entry_point("aot.target.qemu ELF --board BOARD", "aot qemu ELF --board BOARD")
    sys.exit(_main())
