"""Renderers turn a RunResult into one output format each; none of them measures anything."""
