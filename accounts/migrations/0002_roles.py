"""The four roles as groups with their named permissions, as accounts/roles.py listed them on
2026-11-26. Frozen here, not imported: a migration must do the same on every database, whatever
roles.py says later. After every migrate, accounts/apps.py sets the groups to roles.py's list."""

from django.apps.registry import Apps
from django.contrib.auth.management import create_permissions
from django.db import migrations
from django.db.backends.base.schema import BaseDatabaseSchemaEditor

# role -> app label -> the codenames of its permissions in that app.
ROLES = {
    "researcher": {
        "corpus": (
            "view_claim add_claim change_claim view_perspective add_perspective change_perspective "
            "view_perspectivecluster add_perspectivecluster change_perspectivecluster "
            "view_clustermember add_clustermember change_clustermember view_clusterevidence "
            "add_clusterevidence change_clusterevidence view_evidence add_evidence change_evidence "
            "view_topic add_topic change_topic view_claimtopic add_claimtopic change_claimtopic "
            "view_importedrelease view_removal delete_removal"
        ),
        "crawler": (
            "view_crawlrun view_crawlhelper view_debate view_page view_pageversion view_point "
            "view_drop start_crawl"
        ),
        "annotation": (
            "view_job add_job change_job view_item add_item change_item view_hit add_hit change_hit "
            "view_assignment add_assignment change_assignment view_response add_response "
            "change_response view_worker add_worker change_worker view_ledgerentry "
            "view_reconciliationissue view_hititem view_qualification view_workeritem "
            "view_authorship change_reconciliationissue view_mturktemplate add_mturktemplate "
            "change_mturktemplate view_mturkbatch trust_mturktemplate"
        ),
        "aggregation": (
            "view_aggregationrun view_itemoutcome view_workerquality view_adjudication "
            "add_aggregationrun change_workerquality"
        ),
        "export": "view_release",
        "pipeline": (
            "view_pipelinerun add_pipelinerun change_pipelinerun view_steprun add_steprun "
            "change_steprun run_pipeline"
        ),
        "operations": "view_operation",
        "accounts": (
            "view_team add_team change_team view_invitation add_invitation change_invitation "
            "view_auditevent"
        ),
    },
    "approver": {
        "annotation": (
            "spend_money view_job view_hit view_assignment view_ledgerentry "
            "view_reconciliationissue"
        ),
        "operations": "view_operation",
    },
    "adjudicator": {
        "aggregation": (
            "add_adjudication view_itemoutcome view_adjudication view_workerquality "
            "change_itemoutcome"
        ),
        "annotation": "view_job",
        "corpus": (
            "view_claim view_perspective view_evidence view_perspectivecluster "
            "change_perspectivecluster"
        ),
    },
    "annotator": {},
}


def create_roles(apps: Apps, schema_editor: BaseDatabaseSchemaEditor) -> None:
    # Permissions are normally made after every migration has run; the roles need them now.
    for config in apps.get_app_configs():
        config.models_module = True
        create_permissions(config, verbosity=0, apps=apps)
        config.models_module = None
    Group = apps.get_model("auth", "Group")
    Permission = apps.get_model("auth", "Permission")
    for name, by_app in ROLES.items():
        group, _ = Group.objects.get_or_create(name=name)
        # A permission of a model a later migration adds is not there yet: it is left out here, and
        # the migrate's end (accounts/apps.py) adds it.
        group.permissions.set(
            permission
            for app_label, codenames in by_app.items()
            for permission in Permission.objects.filter(
                content_type__app_label=app_label, codename__in=codenames.split()
            )
        )


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
