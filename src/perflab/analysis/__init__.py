"""Numbers only: estimates with intervals, paired ratios, verdicts, the CI gate's tests and change
points. No I/O, no processes: everything here is a function of measured values.
"""
