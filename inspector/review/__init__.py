"""Reviewers close the loop: comments anchored to rendered text or source lines, threads, verdicts
per case, carried across revisions. `models` stores them, `service` holds every rule (limits,
who may edit, where an anchor lives now), `markdown` renders comment bodies safely."""
