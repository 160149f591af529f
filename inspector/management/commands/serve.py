from django.core.management import call_command
from django.core.management.base import BaseCommand


class Command(BaseCommand):
    help = "Set up the database, load the examples and serve the app (development server)."

    def add_arguments(self, parser) -> None:
        parser.add_argument("addrport", nargs="?", default="127.0.0.1:8000")

    def handle(self, *args, **options) -> None:
        import secrets

        from django.conf import settings

        if settings.SECRET_KEY == settings.DEVELOPMENT_SECRET_KEY:
            # The WSGI module refuses the built-in key; this laptop server gets a fresh one per run.
            settings.SECRET_KEY = secrets.token_urlsafe(50)
        call_command("migrate", interactive=False, verbosity=0)
        call_command("load_examples")
        self.stdout.write(f"Prompt Inspector: http://{options['addrport']}/")
        call_command("runserver", options["addrport"], use_reloader=False)
