"""Fresh corpus: memoised lookups. A cache keyed by id() of the argument answers for another
object that got the same id; a cache of the output list hands the same list to every caller."""

import perflab

bench = perflab.Benchmark("tag_lookup", description="Sorted distinct tags of a record")


@bench.case
def RECORD():
    return ["db", "api", "db", "cache", "api"]


@bench.case
def OTHER():
    return ["web", "auth", "web"]


@bench.contender(reference=True)
def distinct(tags):
    """sorted(set(tags))"""
    return sorted(set(tags))


_by_id = {}


@bench.contender
def by_id(tags):
    """memo keyed by id(tags)"""
    key = id(tags)
    if key not in _by_id:
        _by_id[key] = sorted(set(tags))
    return list(_by_id[key])


_by_value = {}


@bench.contender
def by_value(tags):
    """control: memo keyed by the tags as a tuple, a copy returned"""
    key = tuple(tags)
    if key not in _by_value:
        _by_value[key] = sorted(set(tags))
    return list(_by_value[key])
