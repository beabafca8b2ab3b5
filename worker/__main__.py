"""Start the worker, `python -I -S -B <this folder>`: Python puts only this
folder on the path, to import the worker's modules from, then it is taken
off; nothing beside it (the judge) is ever importable."""

import sys

from serve import main

del sys.path[0]
main()
