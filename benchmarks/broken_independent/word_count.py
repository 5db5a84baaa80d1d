"""Independent corpus: words in a line of free text. The declared lines are separated by single
ASCII spaces, tabs and newlines."""

import re

import perflab

bench = perflab.Benchmark("word_count", description="Words of a line, as str.split() counts them")


@bench.case
def SENTENCE():
    return "the quick brown fox\tjumps over\nthe lazy dog"


@bench.case
def SHORT():
    return "hello world"


@bench.contender(reference=True)
def split_words(text):
    """len(text.split())"""
    return len(text.split())


@bench.contender
def ascii_whitespace(text):
    """a regex of the ASCII whitespace the logs were seen to hold: a no-break space joins words"""
    return len([word for word in re.split(r"[ \t\n\r]+", text) if word])


@bench.contender
def spaces_plus_one(text):
    """count the separators: two spaces in a row make an empty word"""
    stripped = text.strip()
    return len(re.findall(r"[ \t\n]", stripped)) + 1 if stripped else 0


@bench.contender
def finditer_words(text):
    """control: runs of non-space characters"""
    return sum(1 for _ in re.finditer(r"\S+", text))
