"""With DEBUG off, `check --deploy` refuses a SECRET_KEY or WORKER_PSEUDONYM_KEY under 32 random bytes."""

from __future__ import annotations

import secrets
import string

import pytest
from django.core.management import call_command
from django.core.management.base import SystemCheckError
from django.test import override_settings

from config.checks import keys_check
from config.keys import estimated_random_bytes, weak_key_problem

STRONG = {"SECRET_KEY": secrets.token_urlsafe(48), "WORKER_PSEUDONYM_KEY": secrets.token_hex(32)}


@pytest.mark.parametrize("maker", [lambda: secrets.token_hex(32), lambda: secrets.token_urlsafe(32)])
def test_the_keys_secrets_makes_pass(maker: object) -> None:
    keys = [maker() for _ in range(100)]  # type: ignore[operator]
    assert len(keys) == 100 and [key for key in keys if weak_key_problem("K", key)] == []


PATTERNED = {
    "a-word-repeated": "uncopyrightable" * 4,
    "hex-digits-in-order": "0123456789abcdef" * 4,
    "the-alphabet": string.ascii_letters,
    "words": "correcthorsebatterystaple" + "correcthorsebatterystaple"[::-1] + "password1234567890",
}


@pytest.mark.parametrize("name", list(PATTERNED))
def test_a_long_patterned_key_fails_and_the_message_gives_its_estimate(name: str) -> None:
    key = PATTERNED[name]
    held = estimated_random_bytes(key)

    assert held < 16
    with override_settings(DEBUG=False, **{**STRONG, "SECRET_KEY": key}):
        (problem,) = keys_check()
    assert f"SECRET_KEY holds about {held:.0f} random bytes" in problem.msg
    assert "repetitions, sequences and dictionary words" in problem.msg


@pytest.mark.parametrize(
    "weak",
    ["x", "k" * 64, secrets.token_hex(16), "django-insecure-" + "a1b2c3d4e5f6g7h8" * 4],
    # Named, not shown: xdist's workers must collect the same ids, and the third is new each time.
    ids=["one-character", "one-repeated-character", "16-random-bytes", "djangos-insecure-prefix"],
)
def test_check_deploy_refuses_a_weak_pseudonym_key_and_says_how_to_make_one(weak: str) -> None:
    with (
        override_settings(DEBUG=False, **{**STRONG, "WORKER_PSEUDONYM_KEY": weak}),
        pytest.raises(SystemCheckError, match="WORKER_PSEUDONYM_KEY") as refused,
    ):
        call_command("check", "--deploy", "--tag", "security")
    assert "secrets.token_urlsafe(48)" in str(refused.value)


def test_a_weak_secret_key_is_named_and_strong_keys_pass() -> None:
    with override_settings(DEBUG=False, **{**STRONG, "SECRET_KEY": "s" * 50}):
        (problem,) = keys_check()
    assert problem.id == "config.E001" and "SECRET_KEY" in problem.msg
    with override_settings(DEBUG=False, **STRONG):
        assert keys_check() == []


def test_development_keys_are_not_judged() -> None:
    with override_settings(DEBUG=True, SECRET_KEY="dev", WORKER_PSEUDONYM_KEY="x"):
        assert keys_check() == []
