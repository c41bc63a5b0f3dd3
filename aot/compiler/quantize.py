"""Moved to :mod:`aot.compiler.quant.pt2e` (``python -m aot.compiler.quant.pt2e``);
this pointer stays for one release."""
if __name__ == "__main__":
    import sys

    from aot.compiler.quant.pt2e import main
    print("note: python -m aot.compiler.quantize is now python -m aot.compiler.quant.pt2e", file=sys.stderr)
    raise SystemExit(main())
