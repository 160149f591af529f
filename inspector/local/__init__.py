"""Local mode: `prompt-inspector serve PATH` shows a folder on disk as the read-only bundle "local",
and Share sends chosen files of it to a server."""
