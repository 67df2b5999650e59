"""The game's notation in a page, as the engine describes it (``games.engine.actions.notation``):
the pages' scripts read and write action tokens only through it
(``frontend/static/frontend/js/notation.js``), so that no token is written by a rule of theirs."""

from django import template
from django.utils.html import json_script
from django.utils.safestring import SafeString

from games.engine.actions import notation

register = template.Library()


@register.simple_tag
def notation_script() -> SafeString:
    """``<script id="action-notation" type="application/json">`` holding the notation."""
    return json_script(notation(), "action-notation")
