"""Isolation: what walls each learner in, and what is measured of it.

`_sandbox` (bubblewrap namespaces, an unprivileged uid, rlimits), `_uids`
(a uid of its own for each learner judged at once), `_space` (a tmpfs of
its own for its scratch), `_preflight` (one worker started as the learners'
will be, and the isolation it got measured, before any learner), `_unicode`
(Hypothesis's tables in the judge's private storage) and `_cleanup` (its
scratch removed afterwards, whatever it left). The worker sees nothing that
names the judge.

Only this docstring lives here: the modules import one another directly.
The public names are `day7_verify`'s.
"""
