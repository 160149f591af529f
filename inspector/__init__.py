"""Prompt Inspector. The compiled copies of the hottest core modules, when built and current, are
served before anything imports them (speedups.py)."""

from . import speedups

speedups.install()
