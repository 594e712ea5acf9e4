"""What tests and benchmarks share to stand a system up and check it: scratch databases, process
groups, the money fault rig (on the platform's fake Prolific, annotation/markets/prolific/fake.py),
ArguAna's expected answers. Tests and bench/ import it; the apps never do (an import contract)."""
