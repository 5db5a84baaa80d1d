"""The call tree of the operation: stacks merged by common prefix, as drawn in a flame graph.

The root is the operation (``measured_region``); each node is one frame in one calling context,
so the same function called from two callers is two nodes, and their times stay apart.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Iterator, Mapping

from perflab.profile.folded import Stack


@dataclass
class Node:
    frame: str
    total: int = 0      # samples in this node and below
    self: int = 0       # samples whose innermost frame is this node
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


def preorder(root: Node) -> Iterator[tuple[Node, int, int]]:
    """(node, depth, parent position) in depth-first order, heaviest child first; the root's parent is -1."""
    pending = [(root, 0, -1)]
    position = 0
    while pending:
        node, depth, parent = pending.pop()
        yield node, depth, parent
        for child in reversed(node.heaviest_children()):
            pending.append((child, depth + 1, position))
        position += 1
