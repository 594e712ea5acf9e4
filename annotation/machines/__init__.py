"""Machine annotators: workers of their own kind, whose labels are responses marked machine.

A machine is never paid through a market (its responses have no assignment, so no ledger entry and no
bonus can reach them) and is never counted as a person: the job's long-format rows leave machines out
unless asked, and agreement is reported for people and for people and machines side by side.
"""
