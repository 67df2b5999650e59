import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("accounts", "0005_player_settings"),
        ("knox", "0009_extend_authtoken_field"),
    ]

    operations = [
        migrations.CreateModel(
            name="TokenOrigin",
            fields=[
                (
                    "token",
                    models.OneToOneField(
                        on_delete=django.db.models.deletion.CASCADE,
                        primary_key=True,
                        related_name="origin",
                        serialize=False,
                        to="knox.authtoken",
                    ),
                ),
                (
                    "mark",
                    models.CharField(
                        help_text="HMAC of the issuing network and user agent", max_length=32
                    ),
                ),
            ],
        ),
    ]
