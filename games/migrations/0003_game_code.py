"""A game's deal is its code (CF1 or CF2, with its draw mode and rules), which any of the 52!
layouts has; the CF1 deal number, draw and variant columns it replaces are written into it."""

from django.db import migrations, models

from games.engine import DealCode


def number_to_code(apps, schema_editor):
    Game = apps.get_model("games", "Game")
    for game in Game.objects.only("id", "number", "draw", "variant").iterator(chunk_size=500):
        code = DealCode(game.number, game.draw, game.variant)
        Game.objects.filter(pk=game.pk).update(code=str(code))


def code_to_number(apps, schema_editor):
    Game = apps.get_model("games", "Game")
    for game in Game.objects.only("id", "code").iterator(chunk_size=500):
        code = DealCode.parse(game.code)
        if code.format != "CF1":
            raise RuntimeError(f"game {game.pk} has a {code.format} code: it has no CF1 number")
        Game.objects.filter(pk=game.pk).update(
            number=code.number, draw=code.draw, variant=code.variant
        )


class Migration(migrations.Migration):
    dependencies = [
        ("games", "0002_logged_actions_and_views"),
    ]

    operations = [
        migrations.AddField(
            model_name="game",
            name="code",
            field=models.CharField(
                default="",
                help_text="The deal code (CF1 or CF2), with its draw mode and rules",
                max_length=64,
            ),
            preserve_default=False,
        ),
        migrations.RunPython(number_to_code, code_to_number),
        migrations.RemoveConstraint(model_name="game", name="games_draw_1_or_3"),
        migrations.RemoveField(model_name="game", name="number"),
        migrations.RemoveField(model_name="game", name="draw"),
        migrations.RemoveField(model_name="game", name="variant"),
    ]
