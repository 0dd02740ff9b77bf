"""Daily deals get secret 26-character keys (RULES.md C2b, PRODUCT.md "Fair daily
deals"): deal codes grow to 40 characters and long-code deals have no number.

Days not yet started that were prepared with a numbered deal are dropped here,
so the preparation job (or the first read of the day) prepares them again with
a key; today and past days keep theirs — players may have started them."""

import datetime as dt

from django.db import migrations, models


def forget_numbered_future_days(apps, schema_editor):
    DailyDeal = apps.get_model("games", "DailyDeal")
    today = dt.datetime.now(dt.UTC).date()
    DailyDeal.objects.filter(
        date__gt=today, deal__number__isnull=False, attempts__isnull=True
    ).delete()


class Migration(migrations.Migration):
    dependencies = [
        ("games", "0003_daily_proof_and_lost_seq"),
    ]

    operations = [
        migrations.AlterField(
            model_name="deal",
            name="code",
            field=models.CharField(max_length=40, unique=True),
        ),
        migrations.AlterField(
            model_name="deal",
            name="number",
            field=models.PositiveIntegerField(
                blank=True,
                help_text="the deal number; empty for a long-code (daily key) deal",
                null=True,
            ),
        ),
        migrations.RunPython(forget_numbered_future_days, migrations.RunPython.noop),
    ]
