"""What a run leaves behind: the results model, results files (perflab's JSON and pyperf's), the
SQLite store and the histories read from it.
"""
