"""What the tiers of test_metrics.py share (split by tier from one file)."""

WORK_BENCH = """
import json
import time
import perflab
bench = perflab.Benchmark("work", compare="exact")

@bench.case()
def DOC():
    return {"numbers": list(range(40)), "text": "x" * 200}

@bench.contender
def once(doc):
    return json.dumps(doc)

@bench.contender
def twice(doc):
    json.dumps(doc)
    return json.dumps(doc)

@bench.contender
def sleepy(doc):
    time.sleep(0.002)
    return json.dumps(doc)
"""
