"""The program perf_jit.txt was recorded from (tests/unit/test_perf_sampler.py): python3.13 -X perf_jit."""

import json


class Encoder:
    @staticmethod
    def run(document):
        for _ in range(2000):
            json.dumps(document)


def main():
    document = {"key": ["caf\u00e9 " * 40] * 20}
    for _ in range(10):
        Encoder.run(document)


main()
