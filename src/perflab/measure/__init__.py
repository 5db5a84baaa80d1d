"""Measuring: worker processes, rounds and interleaving, equivalence checks, comparisons of
contenders, revisions and interpreters, bisection, and the metadata of where it ran.
"""
