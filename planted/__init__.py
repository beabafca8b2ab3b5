"""Planted bugs: proof that the verification suite catches plausible Day 7 mistakes.

``python -m planted`` copies the bundled evaluator once per catalogued bug,
applies the bug's one source substitution to the copy, and runs the invariants
against it under several Hypothesis seeds. See ``planted/README.md``.
"""
