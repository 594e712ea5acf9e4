"""Crowd quality acted on while a job runs: adaptive gold, live worker estimates, stopping on evidence.

The pure cores (`gold_schedule`, `estimates`) import no Django; `services` is where they meet the
database. Importing this package imports neither.
"""
