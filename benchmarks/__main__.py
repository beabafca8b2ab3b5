"""Run the benchmark: ``python -m benchmarks [--impl-path DIR | --impl MODULE]``."""

import sys

from benchmarks.bench import main

sys.exit(main())
