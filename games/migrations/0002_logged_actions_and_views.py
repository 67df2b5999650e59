"""The log's rows are LoggedAction (game.log), the cached views are Game.views with their shape's
version, and Game.actions (a copy of ply) is gone. Views stored before now get version 0: they are
rebuilt from the log when read, and written again at the game's next action."""

import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("games", "0001_initial"),
    ]

    operations = [
        migrations.RenameModel(old_name="Move", new_name="LoggedAction"),
        migrations.AlterField(
            model_name="loggedaction",
            name="game",
            field=models.ForeignKey(
                on_delete=django.db.models.deletion.CASCADE, related_name="log", to="games.game"
            ),
        ),
        migrations.RenameField(model_name="game", old_name="snapshot", new_name="views"),
        migrations.AlterField(
            model_name="game",
            name="views",
            field=models.JSONField(default=dict, help_text="Cache: engine views of the position"),
        ),
        migrations.AddField(
            model_name="game",
            name="views_version",
            field=models.PositiveSmallIntegerField(
                default=0,
                help_text="Shape of the cached views; another than the current is rebuilt",
            ),
        ),
        migrations.RemoveIndex(model_name="game", name="games_daily_board"),
        migrations.RemoveField(model_name="game", name="actions"),
        migrations.AlterField(
            model_name="game",
            name="ply",
            field=models.PositiveIntegerField(
                default=0, help_text="Actions logged, undos included"
            ),
        ),
        migrations.AddIndex(
            model_name="game",
            index=models.Index(
                condition=models.Q(("kind", "daily")),
                fields=["daily_date", "status", "-foundation_cards", "ply"],
                name="games_daily_board",
            ),
        ),
    ]
