from django.db import migrations, models


class Migration(migrations.Migration):
    """Unique once every existing account has its skeleton (0004); a migration of
    its own so the index is built after the rows are written."""

    dependencies = [("accounts", "0004_username_skeleton")]

    operations = [
        migrations.AlterField(
            model_name="user",
            name="username_skeleton",
            field=models.TextField(blank=True, editable=False, null=True, unique=True),
        ),
    ]
