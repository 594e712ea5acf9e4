"""Backups of the two things that cannot be rebuilt: the PostgreSQL database (the crowd's answers, the
money ledger) and the releases directory. Its own app because it belongs to no layer of the
construction: it reads the whole database and the files, and only `restore` checks releases."""
