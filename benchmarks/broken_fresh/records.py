"""Fresh corpus: normalising records. A contender that normalises the caller's dicts in place,
one that returns records sharing the input's nested lists, and one that drops a key only
present in some records."""

import perflab

bench = perflab.Benchmark("records", description="Records with lowercased emails and sorted tags")


@bench.case
def USERS():
    return [
        {"email": "Ada@Example.org", "tags": ["b", "a"]},
        {"email": "bob@example.org", "tags": ["x"]},
    ]


@bench.contender(reference=True)
def rebuilt(records):
    """new dicts, new lists"""
    return [{**record, "email": record["email"].lower(), "tags": sorted(record["tags"])} for record in records]


@bench.contender
def in_place(records):
    """normalises the caller's dicts in place and returns them"""
    for record in records:
        record["email"] = record["email"].lower()
        record["tags"].sort()
    return records


@bench.contender
def known_keys(records):
    """builds each record from the two known keys: drops any other key"""
    return [{"email": r["email"].lower(), "tags": sorted(r["tags"])} for r in records]


@bench.contender
def comprehension(records):
    """control: a copy of each dict, then the two keys replaced"""
    out = []
    for record in records:
        fixed = dict(record)
        fixed["email"] = record["email"].lower()
        fixed["tags"] = sorted(record["tags"])
        out.append(fixed)
    return out
