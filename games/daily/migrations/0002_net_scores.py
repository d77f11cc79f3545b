"""Daily deals compared by net points (issue 47): each play's and par's score less the other
side's. Past plays and pars are scored again from their stored deal results (par from its line),
so every past day's table is recomputed on the new scoring."""

from django.db import migrations, models

from games import engine
from games.engine.worth import deal_net


def _human_side(rules):
    # games.core.services.human_seat: S at a partnership table, else the first seat.
    return rules.side_of("S" if "S" in rules.seats else rules.seats[0])


def score_by_net(apps, schema_editor):
    DailyPlay = apps.get_model("daily", "DailyPlay")
    DailyDeal = apps.get_model("daily", "DailyDeal")
    Deal = apps.get_model("games", "Deal")
    plays = changed = 0
    finished = DailyPlay.objects.filter(finished_at__isnull=False).select_related("match")
    for play in finished.iterator():
        deal = Deal.objects.filter(match_id=play.match_id).order_by("number").first()
        if deal is None or not deal.result:
            continue
        rules = engine.Rules.from_spec(play.match.rules)
        play.net = round(deal_net(deal.result["score"], _human_side(rules)))
        play.save(update_fields=["net"])
        plays += 1
        changed += play.net != play.score
    pars = 0
    for row in DailyDeal.objects.filter(par_tokens__isnull=False).select_related("daily_set"):
        rules = engine.Rules.from_spec(row.daily_set.rules)
        state = engine.Deal(rules, row.dealer, row.hands, row.stock)
        for token in row.par_tokens:
            state.apply(token)
        row.par_net = round(deal_net(state.result().score, _human_side(rules)))
        row.save(update_fields=["par_net"])
        pars += 1
    if plays or pars:
        print(  # noqa: T201 - the count the issue asks a migration to say
            f"\n  daily: {plays} plays and {pars} pars scored by net; "
            f"{changed} plays' comparison figure changed"
        )


class Migration(migrations.Migration):
    dependencies = [
        ("daily", "0001_initial"),
        ("games", "0008_match_bot_seed_match_single_deal"),
    ]

    operations = [
        migrations.AddField(
            model_name="dailydeal",
            name="par_net",
            field=models.SmallIntegerField(
                blank=True,
                help_text="Par's net points: its side's score less the other's.",
                null=True,
            ),
        ),
        migrations.AddField(
            model_name="dailyplay",
            name="net",
            field=models.SmallIntegerField(
                blank=True, help_text="The player's side's score less the other side's.", null=True
            ),
        ),
        migrations.RunPython(score_by_net, migrations.RunPython.noop),
    ]
