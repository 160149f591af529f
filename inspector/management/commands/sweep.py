from datetime import timedelta

from django.core.management.base import BaseCommand

from inspector.bundles.sweep import sweep


class Command(BaseCommand):
    help = (
        "Remove what nothing references any more, once older than --grace-hours: objects in the blob "
        "storage (STORAGE_URL) no bundle references, uploads staged for workers that never finished "
        "them, and those workers' task leases. Safe beside running app servers and workers; run it "
        "daily from cron."
    )

    def add_arguments(self, parser) -> None:
        parser.add_argument(
            "--grace-hours",
            type=float,
            default=24.0,
            help="leave objects written more recently than this (default 24): a queued upload's staged "
            "files wait this long for a worker",
        )
        parser.add_argument("--dry-run", action="store_true", help="list what would go, remove nothing")

    def handle(self, *args, **options) -> None:
        swept = sweep(timedelta(hours=options["grace_hours"]), dry_run=options["dry_run"])
        verb = "would remove" if options["dry_run"] else "removed"
        for name in swept.contents + swept.staged:
            self.stdout.write(f"{verb} {name}")
        self.stdout.write(
            f"{verb} {len(swept.contents)} unreferenced contents, {len(swept.staged)} staged uploads "
            f"and {swept.leases} leases of killed workers' tasks"
        )
