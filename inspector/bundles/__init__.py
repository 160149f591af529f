"""Bundles in and out: uploads checked and stored (queued when large), their contents in the
database or object storage, a stored bundle loaded for a request, the example bundles, the upload
forms, the offline one-file copy."""
