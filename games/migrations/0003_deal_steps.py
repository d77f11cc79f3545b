from django.db import migrations, models
from django.db.models import Count


def count_steps(apps, schema_editor):
    """Deals played before the column existed: their steps are their action rows."""
    Deal = apps.get_model("games", "Deal")
    for deal in Deal.objects.annotate(rows=Count("actions")).filter(rows__gt=0).iterator():
        Deal.objects.filter(pk=deal.pk).update(steps=deal.rows)


class Migration(migrations.Migration):
    dependencies = [
        ("games", "0002_chat_messages"),
    ]

    operations = [
        migrations.AddField(
            model_name="deal",
            name="steps",
            field=models.PositiveSmallIntegerField(default=0),
        ),
        migrations.RunPython(count_steps, migrations.RunPython.noop),
    ]
