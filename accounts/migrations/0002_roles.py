"""The four roles (accounts/roles.py) as groups with their named permissions."""

from django.apps.registry import Apps
from django.contrib.auth.management import create_permissions
from django.db import migrations
from django.db.backends.base.schema import BaseDatabaseSchemaEditor

from accounts.roles import ensure_roles


def create_roles(apps: Apps, schema_editor: BaseDatabaseSchemaEditor) -> None:
    # Permissions are normally made after every migration has run; the roles need them now.
    for config in apps.get_app_configs():
        config.models_module = True
        create_permissions(config, verbosity=0, apps=apps)
        config.models_module = None
    ensure_roles(apps.get_model("auth", "Group"), apps.get_model("auth", "Permission"), strict=False)

class Migration(migrations.Migration):
    dependencies = [
        ("accounts", "0001_initial"),
        ("auth", "0012_alter_user_first_name_max_length"),
        ("contenttypes", "0002_remove_content_type_name"),
        ("corpus", "0002_seed_topics"),
        ("operations", "0001_initial"),
        ("crawler", "0003_start_crawl_permission"),
        ("annotation", "0006_job_teams_spend_money"),
        ("aggregation", "0003_labels_uncapped"),
        ("export", "0001_initial"),
        ("pipeline", "0002_run_pipeline_permission"),
    ]

    operations = [migrations.RunPython(create_roles, migrations.RunPython.noop)]
