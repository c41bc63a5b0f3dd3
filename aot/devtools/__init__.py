"""Profiling and numerical debugging of compiled programs: ETDump, profiles, debug records."""
