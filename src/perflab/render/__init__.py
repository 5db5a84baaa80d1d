"""Renderers: each turns a result, profile or outcome into one output format and measures nothing.

One shape: ``render(subject, ...)`` returns the text of a file format (HTML, Markdown, JSON), or,
in ``render.terminal``, ``render(subject, console, ...)`` prints to a rich console.
"""
