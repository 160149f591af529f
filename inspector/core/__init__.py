"""Prompt Inspector's domain core: loaders, the neutral model, render profiles, the context builder
and provider exporters. Django-free on purpose: everything here runs from a plain Python shell."""
