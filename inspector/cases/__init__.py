"""A case and its document as the pages show them: addresses, the source pane, the files panel, the
message cards, the bundle page's rows, which case a link lands on."""
