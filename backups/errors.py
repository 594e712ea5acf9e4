"""What can go wrong with a backup or a restore, each raised where it is found."""


class BackupError(RuntimeError):
    """A backup could not be written or restored."""


class NotPostgresError(BackupError):
    """The database is not PostgreSQL: pg_dump cannot back it up."""


class PostgresToolError(BackupError):
    """pg_dump or pg_restore failed (the message carries its stderr) or is not installed."""


class BackupCorruptError(BackupError):
    """A backup directory is incomplete, or a file no longer matches its recorded checksum."""


class RestoreTargetError(BackupError):
    """The database or releases directory to restore into already holds data."""
