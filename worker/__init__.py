"""The worker (serve.py): where a target's code runs. Standard library only."""
