# Chinese texts of the catalogue's descriptions: platform policies, storage notes, offering names
# and source titles, shown on Chinese pages where they are filled in.

from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ("platforms", "0001_initial"),
    ]

    operations = [
        migrations.AddField(
            model_name="source",
            name="title_zh",
            field=models.CharField(
                blank=True,
                help_text="Shown on Chinese pages where the title is a description, not a quotation.",
                max_length=300,
                verbose_name="title (Chinese)",
            ),
        ),
        migrations.AddField(
            model_name="platform",
            name="data_retention_zh",
            field=models.TextField(blank=True, verbose_name="data-retention policy (Chinese)"),
        ),
        migrations.AddField(
            model_name="platform",
            name="idle_policy_zh",
            field=models.TextField(blank=True, verbose_name="idle / shutdown policy (Chinese)"),
        ),
        migrations.AddField(
            model_name="platform",
            name="notes_zh",
            field=models.TextField(blank=True, verbose_name="notes (Chinese)"),
        ),
        migrations.AddField(
            model_name="offering",
            name="name_zh",
            field=models.CharField(blank=True, max_length=200, verbose_name="name (Chinese)"),
        ),
        migrations.AddField(
            model_name="storageprice",
            name="notes_zh",
            field=models.CharField(blank=True, max_length=300, verbose_name="notes (Chinese)"),
        ),
    ]
