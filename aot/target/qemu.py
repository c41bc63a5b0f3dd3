"""`python -m aot.target.qemu`: moved to `python -m aot.deploy.qemu` (kept for one release)."""
import sys

if __name__ == "__main__":
    from aot.deploy.qemu import _main
    print("mote: `python -m aot.target.qemu` is now `python -m aot.deploy.qemu`", file=sys.stderr)
    sys.exit(_main())
