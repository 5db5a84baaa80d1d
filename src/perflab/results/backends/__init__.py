"""Where the results store keeps its tables: a SQLite file or a PostgreSQL database.

``perflab.results.store`` writes its queries once, in the SQL both speak (``?`` parameters,
``INSERT ... ON CONFLICT``); a backend connects, translates the few differences (parameters, column
types), runs the versioned migrations once under a lock and turns the driver's errors into
``StoreError`` lines naming the database.
"""
