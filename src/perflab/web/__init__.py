"""The web view of the results store: ``perflab serve`` (a Starlette application) and ``perflab
publish`` (the same pages as a static site). Needs the ``perflab[web]`` extra.

Modules: ``catalog`` (every series and its change points), ``comparison`` (two stored runs),
``site`` (addresses, templates, JSON payloads), ``pages`` (each page from a store), ``app`` (the
server: routes, token, Content-Security-Policy), ``publish`` (the static site).
"""
