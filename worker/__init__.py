"""The worker: the one process where a target's code runs (`serve.py`).

Standard library only, so it starts anywhere a Python does (in the
command's sandbox, as a leased uid) with nothing of the judge's beside it.
The judge imports the Day 7 names and a few pure helpers from here, so the
worker and the judge describe a target with the same code.
"""
