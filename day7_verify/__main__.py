"""`python -m day7_verify` and the `day7-verify` command."""

from __future__ import annotations

import sys

from day7_verify._cli import main

if __name__ == "__main__":
    sys.exit(main())
