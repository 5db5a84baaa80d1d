"""Benchmark jobs spread over quiet machines: a queue in the team's PostgreSQL store (procrastinate),
``perflab worker`` processes that take one job at a time, and what a job does on a worker.

procrastinate is used rather than Dask, Ray or Celery because its queue lives in the same
PostgreSQL database as the results (no broker or scheduler has to reach every machine) and a
worker runs one job at a time.
"""
