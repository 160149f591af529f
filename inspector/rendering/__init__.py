"""Renders of content from outside: run in the bounded worker under the web's policy, kept in the
render cache with what pages read of them, highlighting's and the request's budget."""
