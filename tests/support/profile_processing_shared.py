"""What the tiers of test_profile_processing.py share (split by tier from one file)."""

WORKER = "measured_region (/src/perflab/worker.py:38)"
