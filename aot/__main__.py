"""`python -m aot ...`: the `aot` command (aot.cli) without the console script."""
import sys

from aot.cli import main

sys.exit(main())
