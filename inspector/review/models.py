"""Review storage: threads anchored to a case's text or a file's lines, their comments, verdicts.
Every row belongs to a bundle and goes with it (CASCADE). Only hashes of the per-browser author
keys are kept. A comment keeps its HTML, rendered once when it is written: a view never renders
Markdown, whatever the bodies hold."""

from __future__ import annotations

from django.db import models

ANCHOR_KINDS = (("message", "A message"), ("text", "Selected rendered text"), ("line", "Lines of a file"))
VERDICTS = (("ok", "Looks right"), ("changes", "Needs changes"))


class Thread(models.Model):
    bundle = models.ForeignKey("inspector.Bundle", on_delete=models.CASCADE, related_name="threads")
    created = models.DateTimeField(auto_now_add=True)
    kind = models.CharField(max_length=10, choices=ANCHOR_KINDS)
    # message and text anchors: the case they were made on (document path and case id).
    document = models.CharField(max_length=1024, blank=True)
    case_id = models.CharField(max_length=1024, blank=True)
    message_index = models.PositiveIntegerField(null=True, blank=True)
    text_start = models.PositiveIntegerField(null=True, blank=True)
    # line anchors: the file and lines; text anchors: where the selected text came from.
    path = models.CharField(max_length=1024, blank=True)
    start_line = models.PositiveIntegerField(null=True, blank=True)
    end_line = models.PositiveIntegerField(null=True, blank=True)
    # The anchored text (a message's is cut for display; its hash is exact), which is how the
    # anchor is found again in a revision.
    quote = models.TextField(blank=True)
    quote_hash = models.CharField(max_length=64)
    resolved = models.BooleanField(default=False)
    # Who may resolve or reopen it (besides the owner): the key of the thread's first comment.
    author_key_hash = models.CharField(max_length=64, blank=True)
    # The first bundle of the revision chain this thread was made in: the comment cap and the lock
    # row are the family's, so revisions cannot multiply the cap.
    family = models.CharField(max_length=32, blank=True, db_index=True)

    class Meta:
        ordering = ["created", "id"]
        indexes = [models.Index(fields=["bundle", "document", "case_id"])]


class Comment(models.Model):
    thread = models.ForeignKey(Thread, on_delete=models.CASCADE, related_name="comments")
    created = models.DateTimeField(auto_now_add=True)
    edited = models.DateTimeField(null=True, blank=True)
    author = models.CharField(max_length=80)
    body = models.TextField()
    html = models.TextField(blank=True)
    author_key_hash = models.CharField(max_length=64)

    class Meta:
        ordering = ["created", "id"]


class Verdict(models.Model):
    bundle = models.ForeignKey("inspector.Bundle", on_delete=models.CASCADE, related_name="verdicts")
    document = models.CharField(max_length=1024)
    case_id = models.CharField(max_length=1024)
    verdict = models.CharField(max_length=10, choices=VERDICTS)
    note = models.TextField(blank=True)
    author = models.CharField(max_length=80)
    author_key_hash = models.CharField(max_length=64)
    updated = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["document", "case_id"]
        constraints = [
            models.UniqueConstraint(fields=["bundle", "document", "case_id"], name="one_verdict_per_case")
        ]


class WriteCount(models.Model):
    """Review writes per client address and minute, counted by one atomic UPDATE in the database
    when the shared cache cannot count atomically (the file cache reads, adds and writes back)."""

    address = models.CharField(max_length=100)
    minute = models.BigIntegerField()
    count = models.PositiveIntegerField(default=0)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["address", "minute"], name="one_count_per_minute")]
        indexes = [models.Index(fields=["minute"])]
