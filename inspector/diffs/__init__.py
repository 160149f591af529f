"""Diffs for the pages and the API: two sides compared, bundle by bundle or case by case."""
