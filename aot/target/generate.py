"""`python -m aot.target.generate`: moved to `python -m aot.deploy.generate` (kept for one release)."""
import sys

if __name__ == "__main__":
    from aot.deploy.generate import _main
    print("mote: `python -m aot.target.generate` is now `python -m aot.deploy.generate`", file=sys.stderr)
    sys.exit(_main())
