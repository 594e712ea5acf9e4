"""Configuration helpers fail loudly on bad values and never default a secret."""

from __future__ import annotations

from pathlib import Path

import pytest

from config.env import ConfigError, env_bool, env_hostname, env_int, env_list, env_pairs, secret_key


def test_env_bool_accepts_the_usual_spellings(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FLAG", "Yes")
    assert env_bool("FLAG") is True
    monkeypatch.setenv("FLAG", "off")
    assert env_bool("FLAG", default=True) is False


def test_env_bool_rejects_a_typo(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DEBUG", "ture")
    with pytest.raises(ConfigError, match="DEBUG='ture' is not a boolean"):
        env_bool("DEBUG")


def test_env_int_rejects_text(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PORT", "eighty")
    with pytest.raises(ConfigError, match="PORT='eighty' is not an integer"):
        env_int("PORT", 8000)


def test_env_list_splits_on_commas(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ALLOWED_HOSTS", "a.example, b.example,,")
    assert env_list("ALLOWED_HOSTS", []) == ["a.example", "b.example"]


def test_secret_key_is_required_without_debug(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.delenv("SECRET_KEY", raising=False)
    with pytest.raises(ConfigError, match="SECRET_KEY must be set"):
        secret_key(debug=False, var_dir=tmp_path)


def test_secret_key_in_debug_is_generated_once_and_kept(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.delenv("SECRET_KEY", raising=False)
    first = secret_key(debug=True, var_dir=tmp_path)
    assert len(first) >= 50
    assert secret_key(debug=True, var_dir=tmp_path) == first
    assert (tmp_path / "secret_key").stat().st_mode & 0o777 == 0o600


def test_env_int_enforces_a_minimum(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("KEEP", "3")
    assert env_int("KEEP", 7, minimum=1) == 3
    monkeypatch.setenv("KEEP", "-1")
    with pytest.raises(ConfigError, match="KEEP='-1' is below the minimum of 1"):
        env_int("KEEP", 7, minimum=1)


def test_env_hostname_lowercases_a_bare_domain_and_rejects_a_url(monkeypatch: pytest.MonkeyPatch) -> None:
    assert env_hostname("DOMAIN") == ""
    monkeypatch.setenv("DOMAIN", " Stancework.Example.ORG ")
    assert env_hostname("DOMAIN") == "stancework.example.org"
    monkeypatch.setenv("DOMAIN", "stancework.example.org/annotate")
    with pytest.raises(ConfigError, match="no scheme, port, path"):
        env_hostname("DOMAIN")


def test_env_pairs_reads_names_and_paths(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MARKET_CLIENTS", "mturk=a.b.c, prolific = d.e")
    assert env_pairs("MARKET_CLIENTS") == {"mturk": "a.b.c", "prolific": "d.e"}
    monkeypatch.delenv("MARKET_CLIENTS")
    assert env_pairs("MARKET_CLIENTS") == {}


def test_env_pairs_rejects_a_name_without_a_value(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MARKET_CLIENTS", "mturk")
    with pytest.raises(ConfigError, match="'mturk' is not a name=value pair"):
        env_pairs("MARKET_CLIENTS")
