from django.core.management.base import BaseCommand

from inspector.bundles.examples import example_manage_token, load_examples
from inspector.views import manage_link


class Command(BaseCommand):
    help = (
        "Load the example bundles from fixtures/examples/ (idempotent) and print each one's "
        "private manage link (its token moderates the example's comments)."
    )

    def handle(self, *args, **options) -> None:
        for bundle in load_examples():
            self.stdout.write(
                f"{bundle.example}: /b/{bundle.id}/  manage (keep private): "
                f"{manage_link(bundle.id, example_manage_token(bundle.id))}"
            )
