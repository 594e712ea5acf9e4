"""Read configuration from the environment, failing loudly on a bad value.

Pure: no Django import, so the settings modules and scripts can both use it.
"""

from __future__ import annotations

import os
import re
import secrets
from pathlib import Path

TRUE = {"1", "true", "yes", "on"}
FALSE = {"0", "false", "no", "off", ""}


class ConfigError(ValueError):
    """An environment variable holds a value the platform cannot use."""


def env_str(name: str, default: str = "") -> str:
    return os.environ.get(name, default)


def env_bool(name: str, default: bool = False) -> bool:
    raw = os.environ.get(name)
    if raw is None:
        return default
    value = raw.strip().lower()
    if value in TRUE:
        return True
    if value in FALSE:
        return False
    raise ConfigError(f"{name}={raw!r} is not a boolean (use one of {sorted(TRUE | FALSE - {''})})")


def env_int(name: str, default: int, minimum: int | None = None) -> int:
    raw = os.environ.get(name)
    if raw is None or raw.strip() == "":
        return default
    try:
        value = int(raw)
    except ValueError:
        raise ConfigError(f"{name}={raw!r} is not an integer") from None
    if minimum is not None and value < minimum:
        raise ConfigError(f"{name}={raw!r} is below the minimum of {minimum}")
    return value


def env_list(name: str, default: list[str]) -> list[str]:
    raw = os.environ.get(name)
    if raw is None:
        return default
    return [part.strip() for part in raw.split(",") if part.strip()]


def env_pairs(name: str) -> dict[str, str]:
    """`a=x,b=y` as {"a": "x", "b": "y"}; empty when unset."""
    pairs = {}
    for part in env_list(name, []):
        key, equals, value = part.partition("=")
        if not equals or not key.strip() or not value.strip():
            raise ConfigError(f"{name}: {part!r} is not a name=value pair")
        pairs[key.strip()] = value.strip()
    return pairs


# A DNS name: dot-separated labels of letters, digits and inner hyphens (no scheme, port or path).
LABEL = r"[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?"
HOSTNAME = re.compile(rf"^(?=.{{1,253}}$){LABEL}(\.{LABEL})*$")


def env_hostname(name: str) -> str:
    """A bare host name (lower-cased), or "" when unset."""
    raw = os.environ.get(name, "").strip()
    if raw and not HOSTNAME.match(raw.lower()):
        raise ConfigError(f"{name}={raw!r} is not a host name (give the bare domain: no scheme, port, path)")
    return raw.lower()


def env_path(name: str, default: Path) -> Path:
    raw = os.environ.get(name)
    return Path(raw).expanduser().resolve() if raw else default


def secret_key(debug: bool, var_dir: Path) -> str:
    """SECRET_KEY from the environment; in DEBUG, one generated once into var/."""
    key = os.environ.get("SECRET_KEY", "")
    if key:
        return key
    if not debug:
        raise ConfigError("SECRET_KEY must be set when DEBUG is off")
    path = var_dir / "secret_key"
    if not path.exists():
        var_dir.mkdir(parents=True, exist_ok=True)
        path.write_text(secrets.token_urlsafe(50))
        path.chmod(0o600)
    return path.read_text().strip()
