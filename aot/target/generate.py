"""`python -m aot.target.generate`: now `aot board-sources BOARD` (kept for one release)."""
import sys

if __name__ == "__main__":
    from aot.deploy.generate import _main
    from aot.errors import note_moved_entry_point
    note_moved_entry_point("aot.target.generate --board-sources BOARD", "aot board-sources BOARD")
    sys.exit(_main())
