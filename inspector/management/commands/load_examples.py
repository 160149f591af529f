from django.core.management.base import BaseCommand

from inspector.examples import load_examples


class Command(BaseCommand):
    help = "Load the example bundles from fixtures/examples/ (idempotent)."

    def handle(self, *args, **options) -> None:
        for bundle in load_examples():
            self.stdout.write(f"{bundle.example}: /b/{bundle.id}/")
