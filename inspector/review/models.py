"""Review storage: threads anchored to a case's text or a file's lines, their comments, verdicts.
Every row belongs to a bundle and goes with it (CASCADE). Only hashes of the per-browser author
keys are kept."""

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

    class Meta:
        ordering = ["created", "id"]
        indexes = [models.Index(fields=["bundle", "document", "case_id"])]


class Comment(models.Model):
    thread = models.ForeignKey(Thread, on_delete=models.CASCADE, related_name="comments")
    created = models.DateTimeField(auto_now_add=True)
    edited = models.DateTimeField(null=True, blank=True)
    author = models.CharField(max_length=80)
    body = models.TextField()
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
        constraints = [models.UniqueConstraint(fields=["bundle", "document", "case_id"],
                                               name="one_verdict_per_case")]
