"""Independent corpus: flatten a nested list of tags (lists in lists). The declared ones nest two
or three levels."""

import perflab

bench = perflab.Benchmark("flatten", description="Tags of a nested list, in order")


@bench.case
def TAGS():
    return ["a", ["b", ["c", "d"]], [], "e"]


@bench.case
def FLAT():
    return [["x"], ["y", "z"]]


@bench.contender(reference=True)
def recursive(items):
    """recursion over the lists"""
    flat = []
    for item in items:
        if isinstance(item, list):
            flat.extend(recursive(item))
        else:
            flat.append(item)
    return flat


@bench.contender
def bounded_stack(items):
    """an explicit stack that stops descending past 32 levels ("tags never nest that deep")"""
    flat, stack = [], [(iter(items), 0)]
    while stack:
        iterator, depth = stack[-1]
        item = next(iterator, StopIteration)
        if item is StopIteration:
            stack.pop()
        elif isinstance(item, list) and depth < 32:
            stack.append((iter(item), depth + 1))
        elif not isinstance(item, list):
            flat.append(item)
    return flat


@bench.contender
def unbounded_stack(items):
    """control: an explicit stack of iterators"""
    flat, stack = [], [iter(items)]
    while stack:
        item = next(stack[-1], StopIteration)
        if item is StopIteration:
            stack.pop()
        elif isinstance(item, list):
            stack.append(iter(item))
        else:
            flat.append(item)
    return flat
