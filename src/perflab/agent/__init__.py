"""perflab mcp: the Model Context Protocol server (the official ``mcp`` package, stdio) through
which an AI assistant runs perflab's verbs and has its optimizations verified
(docs/mcp.md). Imported only by the verb, once it has found the ``perflab[mcp]`` extra.
"""
