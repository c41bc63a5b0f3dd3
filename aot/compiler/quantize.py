"""Moved to :mod:`aot.compiler.quant.pt2e`; only ``python -m aot.compiler.quantize``
stays, for one release (the command is ``aot compare MODEL.py --int8``)."""
if __name__ == "__main__":
    from aot.compiler.quant.pt2e import main
    from aot.errors import note_moved_entry_point
    note_moved_entry_point("aot.compiler.quantize MODEL.py", "aot compare MODEL.py --int8")
    raise SystemExit(main())
