"""Usernames are unique ignoring case ("Bob" and "bob" are one name), enforced by the database
so that two sign-ups racing each other cannot both get it. LOWER() indexes work on SQLite and
PostgreSQL alike; usernames are ASCII (accounts.serializers.USERNAME_RE)."""

from django.db import migrations


class Migration(migrations.Migration):
    dependencies = [("auth", "0012_alter_user_first_name_max_length")]

    operations = [
        migrations.RunSQL(
            sql="CREATE UNIQUE INDEX accounts_username_ci_uniq ON auth_user (LOWER(username));",
            reverse_sql="DROP INDEX accounts_username_ci_uniq;",
        )
    ]
