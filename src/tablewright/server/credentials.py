"""Loading the ``--auth`` file: the access keys ``tablewright serve`` accepts.

The file is YAML (so JSON works too, JSON being YAML) with one list::

    credentials:
      - access_key_id: AKIDLOCALDEV
        secret_access_key: local-dev-secret

A list of records rather than a key->secret mapping leaves room for per-key fields later
(a name, an expiry) without changing the format.
"""

from __future__ import annotations

from pathlib import Path

import yaml


class AuthFileError(ValueError):
    """The auth file is missing, unreadable or not in the documented shape."""


def load_credentials(path: str | Path) -> dict[str, str]:
    """Read ``path`` and return ``{access_key_id: secret_access_key}``; raise AuthFileError naming the spot."""
    path = Path(path)
    try:
        document = yaml.safe_load(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise AuthFileError(f"{path}: cannot read auth file: {exc.strerror}") from None
    except yaml.YAMLError as exc:
        raise AuthFileError(f"{path}: not valid YAML/JSON: {exc}") from None
    if not isinstance(document, dict) or not isinstance(document.get("credentials"), list):
        raise AuthFileError(
            f"{path}: expected a top-level 'credentials:' list of access_key_id/secret_access_key"
        )
    credentials: dict[str, str] = {}
    for index, entry in enumerate(document["credentials"]):
        where = f"{path}: credentials[{index}]"
        if not isinstance(entry, dict):
            raise AuthFileError(f"{where}: expected a mapping with access_key_id and secret_access_key")
        key, secret = entry.get("access_key_id"), entry.get("secret_access_key")
        for name, value in (("access_key_id", key), ("secret_access_key", secret)):
            if not isinstance(value, str) or not value:
                raise AuthFileError(f"{where}: '{name}' must be a non-empty string")
        if key in credentials:
            raise AuthFileError(f"{where}: access_key_id '{key}' is listed twice")
        credentials[key] = secret
    if not credentials:
        raise AuthFileError(f"{path}: 'credentials' is empty, so no request could ever be accepted")
    return credentials
