"""Renders of content from outside: run in the bounded worker under the web's policy and a budget
per request, kept in the render cache with what the pages read of them."""
