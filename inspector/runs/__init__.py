"""Runs in the shell: the `run-check` console command (command.py, no Django) and the checking of an
uploaded run for the API and the page (uploads.py). The reading and comparing is the core's
(inspector/core/runs/)."""
