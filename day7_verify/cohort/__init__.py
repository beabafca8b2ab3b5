"""The class: find the learners, copy each folder, one bounded child per learner.

A learner's way through this room, in order: `_discover` finds it (one
learner per submission under --cohort), `_bundle` lists the private copy of
everything that judges, `_judge` copies its folder and starts its child,
`_supervise` bounds that child in time and output, `_child` is the child
itself (copied into the bundle; it imports nothing of ours), and `_pool`
judges many learners a few at a time. Whatever fails with one folder ends
in its row, never the class's.

Only this docstring lives here: the modules import one another directly, so
importing one room never runs another's imports. The public names are
`day7_verify`'s.
"""
