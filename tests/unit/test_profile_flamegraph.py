"""The HTML flame graph: one offline file, escaped, and working in a real browser (Playwright + Debian's chromium)."""

import json

from perflab.render.html.templating import script_json


def test_script_json_cannot_close_the_script_element():
    text = script_json({"name": "</script><!-- \u2028"})
    assert "<" not in text and json.loads(text) == {"name": "</script><!-- \u2028"}
