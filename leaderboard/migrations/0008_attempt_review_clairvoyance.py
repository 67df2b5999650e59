from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("leaderboard", "0007_attempt_review_device"),
    ]

    operations = [
        migrations.AddField(
            model_name="attemptreview",
            name="evidence",
            field=models.FloatField(
                blank=True,
                help_text="The clairvoyance test's log likelihood ratio, clairvoyant to honest "
                "(games.engine.clairvoyance); null until judged",
                null=True,
            ),
        ),
        migrations.AddField(
            model_name="attemptreview",
            name="forks",
            field=models.JSONField(
                blank=True,
                default=list,
                help_text="The forks weighed: the action's number, the move made, each legal "
                "move's share of the sampled deals, habit, honest chance and whether the true "
                "deck kept the win after it, the evidence",
            ),
        ),
        migrations.AddField(
            model_name="attemptreview",
            name="judgement",
            field=models.JSONField(
                blank=True,
                default=dict,
                help_text="What its log showed (cards seen, most cards home, moves) and how it "
                "was judged: decisions looked at, solver positions, whether complete, the "
                "test's version",
            ),
        ),
        migrations.AddField(
            model_name="attemptreview",
            name="judged_at",
            field=models.DateTimeField(blank=True, null=True),
        ),
        migrations.AddField(
            model_name="attemptreview",
            name="judge_task",
            field=models.CharField(
                blank=True,
                default="",
                help_text="The judging task waited for, if any",
                max_length=64,
            ),
        ),
    ]
