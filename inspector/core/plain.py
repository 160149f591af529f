"""Plain JSON data from what a parser returns.

TOML and YAML 1.1 have dates and times; JSON does not. A date in a deck's sample or a raw request's
metadata would otherwise reach json.dumps in the API, the CLI or an export and fail there. They
become ISO 8601 text at the parser, once.
"""

from __future__ import annotations

import datetime
from typing import Any


def json_safe(value: Any) -> Any:
    if isinstance(value, dict):
        return {str(key) if not isinstance(key, str) else key: json_safe(item) for key, item in value.items()}
    if isinstance(value, list):
        return [json_safe(item) for item in value]
    if isinstance(value, (datetime.date, datetime.time)):  # datetime is a date
        return value.isoformat()
    return value
