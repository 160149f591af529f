"""The token ledger and cache map of a stored bundle, and the panels that show them."""
