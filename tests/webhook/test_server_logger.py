"""gunicorn's access log costs nothing unless one is configured."""

from __future__ import annotations

from typing import Any

import pytest
from gunicorn.config import Config

from webhook.shell.server import WebhookLogger, logging_config


def _logger(**settings: Any) -> WebhookLogger:
    config = Config()
    config.set("logconfig_dict", logging_config())
    for key, value in settings.items():
        config.set(key, value)
    return WebhookLogger(config)


def test_no_access_log_builds_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    logger = _logger()

    def atoms(*_: Any) -> dict[str, str]:
        raise AssertionError("access-log fields were built though no access log is configured")

    monkeypatch.setattr(logger, "atoms", atoms)
    logger.access(None, None, {}, None)


def test_a_configured_access_log_still_logs(monkeypatch: pytest.MonkeyPatch) -> None:
    logger = _logger(accesslog="-")
    built: list[object] = []
    monkeypatch.setattr(logger, "atoms", lambda *args: built.append(args) or {})
    logger.access(None, None, {}, None)
    assert len(built) == 1
