"""perflab's pytest plugin: the ``benchmark`` fixture with pytest-benchmark's API, timed by perflab.

plugin.py is the ``pytest11`` entry point (options and when the fixture is taken over);
fixtures.py the fixture itself, registered only when perflab provides it; fixture.py the object a
test receives; sampling.py the in-process stopping rule and statistics; session.py what happens at
the end of the session (store, JSON, gate, summary); report.py the formats; against.py the gate.
"""
