"""Independent corpus: flatten a nested list of tags (menus in menus). The declared menus are
two levels deep."""

import perflab

bench = perflab.Benchmark("nested", description="All tags of a nested menu, in order")


@bench.case
def MENU():
    return ["home", ["news", "sport", ["football", "tennis"]], "contact"]


@bench.case
def FLAT():
    return ["a", "b"]


@bench.contender(reference=True)
def recursive(menu):
    """recursion over sublists"""
    tags = []
    for item in menu:
        if isinstance(item, list):
            tags.extend(recursive(item))
        else:
            tags.append(item)
    return tags


@bench.contender
def three_levels(menu):
    """unrolled to three levels, as deep as menus were said to go"""
    tags = []
    for item in menu:
        if not isinstance(item, list):
            tags.append(item)
            continue
        for inner in item:
            if not isinstance(inner, list):
                tags.append(inner)
                continue
            tags.extend(x for x in inner if not isinstance(x, list))
    return tags


@bench.contender
def with_stack(menu):
    """control: an explicit stack instead of recursion"""
    tags, stack = [], [iter(menu)]
    while stack:
        for item in stack[-1]:
            if isinstance(item, list):
                stack.append(iter(item))
                break
            tags.append(item)
        else:
            stack.pop()
    return tags
