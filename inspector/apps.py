from django.apps import AppConfig


class InspectorConfig(AppConfig):
    name = "inspector"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        # A worker renews its running tasks' leases through django-tasks' signals, connected here
        # so that every process running tasks has them, whichever task it runs first.
        from inspector.bundles import queued  # noqa: F401
