"""What the tiers of test_pyperf_scripts.py share (split by tier from one file)."""

import textwrap
from pathlib import Path

SCRIPT = """
    import asyncio
    import pyperf

    def work(n):
        return sum(range(n))

    def fixed_cost(loops, step):
        # the script times itself: pyperf uses what this returns, and so must perflab
        return loops * step

    async def tick():
        await asyncio.sleep(0)
        return 1

    if __name__ == "__main__":
        runner = pyperf.Runner()
        runner.metadata["description"] = "a pyperf script <with> markup"
        runner.argparser.add_argument("--size", type=int, default=100)
        args = runner.parse_args()
        runner.bench_func("sum", work, args.size, metadata={"unit": "second", "loops_hint": 3, "odd": object()})
        runner.bench_time_func("fixed", fixed_cost, 0.001, inner_loops=4)
        runner.timeit("join", stmt="','.join(items)", setup="items = ['a'] * 50")
        runner.bench_async_func("tick", tick)
"""


def write_script(directory: Path, source: str = SCRIPT, name: str = "bm_script.py") -> Path:
    path = directory / name
    path.write_text(textwrap.dedent(source))
    return path
