"""What each existing name looks like (accounts/names.py), stored before the
column becomes unique (0005). Of existing accounts whose names are confusable
with each other, the oldest keeps the skeleton and the others keep theirs
empty (NULL, which a unique column allows): no account is renamed or removed,
and a new name that looks like any of them is still refused, through the
oldest. They are listed in the migration's output for staff to look at."""

from django.db import migrations, models

from accounts.names import username_skeleton


def store_skeletons(apps, schema_editor):
    User = apps.get_model("accounts", "User")
    holders: dict[str, str] = {}
    for user in User.objects.order_by("pk").only("pk", "username"):
        skeleton = username_skeleton(user.username)
        if skeleton in holders:
            print(f"\n  {user.username!r} looks like the older {holders[skeleton]!r}: left without")
            continue
        holders[skeleton] = user.username
        User.objects.filter(pk=user.pk).update(username_skeleton=skeleton)


class Migration(migrations.Migration):
    dependencies = [("accounts", "0003_appearance")]

    operations = [
        migrations.AddField(
            model_name="user",
            name="username_skeleton",
            field=models.TextField(blank=True, editable=False, null=True),
        ),
        migrations.RunPython(store_skeletons, migrations.RunPython.noop),
    ]
