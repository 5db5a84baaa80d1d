"""Independent corpus: the fields of a comma-separated line typed by hand, whitespace around
each field removed. The declared lines pad with ordinary spaces only."""

import perflab

bench = perflab.Benchmark("fields", description="Fields of a line, stripped")


@bench.case
def ADDRESS():
    return "12 High Street , Oxford,  OX1 2JD"


@bench.case
def SHORT():
    return "a,b"


@bench.contender(reference=True)
def stripped(line):
    """split(","), then str.strip() on each field"""
    return [field.strip() for field in line.split(",")]


@bench.contender
def strip_spaces(line):
    """strip(" "): a tab, a no-break space or an ideographic space stays"""
    return [field.strip(" ") for field in line.split(",")]


@bench.contender
def mapped(line):
    """control: map(str.strip, ...)"""
    return list(map(str.strip, line.split(",")))
