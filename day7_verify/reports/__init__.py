"""Reports: what a learner's child left, made a verdict, a score and reports.

`_evidence` reads the child's files once, bounded, as data; `_verdict`,
`_causes` and `_score` make the verdict, its lessons' causes and the score;
`_report` holds the verdicts as data and their versioned JSON form, made
safe by `_safe` (and `_width` for terminal columns); `_text`, `_html`,
`_junit` and `_gradescope` are the terminal and the files; `_shard` and
`_baseline` join and compare reports; `_output` writes each file where the
user meant (a device or link written through, a file replaced whole).

Only this docstring lives here: the modules import one another directly.
The public names are `day7_verify`'s.
"""
