"""What the test tiers share: running perflab (cli.py), git repositories, external tools, the
browser and PostgreSQL fixtures, and the files and stores some tests build."""
