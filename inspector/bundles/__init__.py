"""Bundles in and out: uploads checked and stored, a stored bundle loaded for a request, the example
bundles, the upload forms, the offline one-file copy."""
