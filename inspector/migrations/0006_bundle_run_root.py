from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("inspector", "0005_blob_data_in_storage"),
    ]

    operations = [
        migrations.AddField(
            model_name="bundle",
            name="run_root",
            field=models.CharField(blank=True, default="", max_length=64),
        ),
    ]
