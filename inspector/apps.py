from django.apps import AppConfig


class InspectorConfig(AppConfig):
    name = "inspector"
    default_auto_field = "django.db.models.BigAutoField"
