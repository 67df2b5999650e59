"""API tokens moved from DRF's ``rest_framework.authtoken`` to django-rest-knox: the old table,
which held every key in clear, is dropped with its tokens (their owners log in again for a
knox token). A database made since has no such table: nothing to do."""

from django.db import migrations


class Migration(migrations.Migration):
    dependencies = [
        ("accounts", "0003_guest"),
        ("knox", "0009_extend_authtoken_field"),
    ]

    operations = [
        migrations.RunSQL("DROP TABLE IF EXISTS authtoken_token", migrations.RunSQL.noop),
    ]
