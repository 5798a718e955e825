"""The Jinja2 environment of the pages (HTML autoescaped), and figures as embedded images."""

from __future__ import annotations

import base64
import functools
import io
from typing import Any

__all__ = ["png", "render_template", "render_text"]


@functools.cache
def _environment() -> Any:
    import jinja2

    return jinja2.Environment(
        loader=jinja2.PackageLoader("skcodex._pages", "templates"),
        autoescape=True,
        trim_blocks=True,
        lstrip_blocks=True,
        undefined=jinja2.StrictUndefined,
    )


def render_template(name: str, context: dict[str, Any]) -> str:
    """One template of the templates folder rendered (autoescaped) with ``context``."""
    return _environment().get_template(name).render(context)


def render_text(source: str, context: dict[str, Any]) -> str:
    """A template given as text, rendered as the folder's are (it may import their macros)."""
    return _environment().from_string(source).render(context)


def png(fig: Any) -> str:
    """A matplotlib figure as base64-encoded PNG bytes, to embed in a page."""
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=100)
    return base64.b64encode(buffer.getvalue()).decode("ascii")
