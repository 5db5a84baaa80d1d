"""Independent corpus: the length of a name as shown (composed characters), for column layout.
The declared names are composed already; a decomposed accent is two code points."""

import unicodedata

import perflab

bench = perflab.Benchmark("display_width", description="Characters of a name after NFC")


@bench.case
def LATIN():
    return "Zoë Ångström"


@bench.case
def PLAIN():
    return "Ada Lovelace"


@bench.contender(reference=True)
def composed(name):
    """len of the NFC form"""
    return len(unicodedata.normalize("NFC", name))


@bench.contender
def printable_fast_path(name):
    """len() when the name is printable: combining marks are printable"""
    return len(name) if name.isprintable() else len(unicodedata.normalize("NFC", name))


@bench.contender
def ascii_fast_path(name):
    """control: len() for ASCII, which NFC leaves as it is"""
    return len(name) if name.isascii() else len(unicodedata.normalize("NFC", name))
