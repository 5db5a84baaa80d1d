"""What the tiers of test_program_profile.py share (split by tier from one file)."""

EXITS = """
import sys, time
def spin():
    end = time.perf_counter() + 0.3
    while time.perf_counter() < end:
        pass
spin()
print("the program's own output", sys.argv[1:])
sys.exit(3)
"""
