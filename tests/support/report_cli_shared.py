"""What the tiers of test_report_cli.py share (split by tier from one file)."""

BENCH = """
import perflab

bench = perflab.Benchmark("tiny", description="report options", compare="exact")


@bench.case
def ONE():
    return list(range(50))


@bench.contender(reference=True)
def builtin_sum(xs):
    return sum(xs)


@bench.contender
def loop_sum(xs):
    total = 0
    for x in xs:
        total += x
    return total
"""
