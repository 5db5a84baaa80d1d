"""Passwords in database URLs masked: the one function every message, log line, stored command line
and page that may hold a ``--db``/``$PERFLAB_DB`` value passes its text through (docs/security.md)."""

from __future__ import annotations

import re

MASK = "***"
# scheme://user:PASSWORD@host (the password ends at the last '@' before the host: it may hold '@'s
# where the user did not percent-encode them), and libpq's ?password=PASSWORD / &password=PASSWORD.
_USERINFO = re.compile(r"(?P<head>\b[A-Za-z][A-Za-z0-9+.-]*://[^/\s:@]*:)(?P<secret>[^/\s]*)@(?=[^@/\s]*(?:[/\s?]|$))")
_QUERY = re.compile(r"(?P<head>[?&]password=)(?P<secret>[^&\s#]*)", re.IGNORECASE)


def mask_credentials(text: str) -> str:
    """``text`` with the password of every URL in it replaced by ``***`` (the rest kept, so that a
    message still says which database)."""
    text = _USERINFO.sub(lambda match: f"{match['head']}{MASK}@", text)
    return _QUERY.sub(lambda match: f"{match['head']}{MASK}", text)
