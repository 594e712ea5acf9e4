from typing import Any

from django.apps import AppConfig, apps
from django.db.models.signals import post_migrate


def _ensure_roles(**kwargs: Any) -> None:
    from django.contrib.auth.management import create_permissions
    from django.contrib.auth.models import Group, Permission

    from accounts.roles import ensure_roles

    for config in apps.get_app_configs():  # the roles name permissions of apps migrated after this one
        create_permissions(config, verbosity=0)
    ensure_roles(Group, Permission)


class AccountsConfig(AppConfig):
    name = "accounts"
    verbose_name = "People: roles, teams, invitations, audit"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        # After every migrate, and the flush between transactional tests: the roles as roles.py says.
        post_migrate.connect(_ensure_roles, sender=self)
