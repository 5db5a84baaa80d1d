"""The call tree of the operation: stacks merged by common prefix, as drawn in a flame graph.

The root is the operation (``measured_region``); each node is one frame in one calling context,
so the same function called from two callers is two nodes, and their times stay apart.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from perflab.profile.folded import Stack


@dataclass
class Node:
    frame: str
    total: int = 0  # samples in this node and below
    self: int = 0  # samples whose innermost frame is this node
    children: dict[str, Node] = field(default_factory=dict)

    def child(self, frame: str) -> Node:
        node = self.children.get(frame)
        if node is None:
            node = self.children[frame] = Node(frame)
        return node

    def heaviest_children(self) -> list[Node]:
        return sorted(self.children.values(), key=lambda node: (-node.total, node.frame))


def build_tree(stacks: Mapping[Stack, int], root_name: str = "measured_region") -> Node:
    root = Node(root_name)
    for stack, count in stacks.items():
        node = root
        node.total += count
        for frame in stack:
            node = node.child(frame)
            node.total += count
        node.self += count
    return root


def hottest_path(root: Node, floor: float = 0.05) -> list[Node]:
    """From the root, always into the heaviest child, while it holds at least ``floor`` of the operation."""
    path = [root]
    while path[-1].children:
        heaviest = path[-1].heaviest_children()[0]
        if heaviest.total < floor * root.total:
            break
        path.append(heaviest)
    return path


@dataclass
class FlameColumns:
    """The call tree as columns in depth-first order (what the flame graph page draws from)."""

    frame: list[str]  # each node's frame label
    depth: list[int]  # 0 for the root
    total: list[int]
    self: list[int]


def flame_columns(stacks: Mapping[Stack, int], root_name: str = "measured_region") -> FlameColumns:
    """Nodes in depth-first order with siblings sorted by name, as FlameGraph does.

    Sorted stacks are swept once: a stack shares its first k nodes with the previous one when
    their first k frames agree, so no tree of objects is built (fast for 10^5 distinct stacks).
    Sorting by name rather than by weight keeps the layout of two profiles of the same code alike.
    """
    frame, depth, parent, own = [root_name], [0], [-1], [0]
    path = [0]
    previous: Stack = ()
    for stack, count in sorted(stacks.items()):
        shared = 0
        limit = min(len(stack), len(previous))
        while shared < limit and stack[shared] == previous[shared]:
            shared += 1
        del path[shared + 1 :]
        for level in range(shared, len(stack)):
            frame.append(stack[level])
            depth.append(level + 1)
            parent.append(path[-1])
            own.append(0)
            path.append(len(frame) - 1)
        own[path[-1]] += count
        previous = stack
    total = list(own)
    for node in range(len(frame) - 1, 0, -1):  # children come after their parent
        total[parent[node]] += total[node]
    return FlameColumns(frame, depth, total, own)
