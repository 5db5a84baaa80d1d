"""An asv suite using every feature perflab runs (tests/unit/test_asv_suite.py and the e2e tests)."""

import abc

DATA = []


def setup(*params):
    # A module's setup runs before each of its benchmarks (the class ones too), with their parameters.
    DATA[:] = range(1000)


def time_sum():
    sum(DATA)


def time_sorted(n):
    sorted(DATA[:n])


time_sorted.params = [10, 100]


class TimeSuite:
    params = ([1, 2], ["a", "b"])
    param_names = ["n", "letter"]
    timeout = 120

    def setup(self, n, letter):
        if n == 2 and letter == "b":
            raise NotImplementedError("n=2 with b")
        self.text = letter * n

    def time_upper(self, n, letter):
        return self.text.upper()

    def teardown(self, n, letter):
        # asv calls teardown after a setup that skipped, too
        self.__dict__.pop("text", None)


class Popping:
    # One call per setup: a second pop of the one item would fail.
    number = 1

    def setup(self):
        self.items = [1]

    def time_pop(self):
        self.items.pop()


class Cached:
    def setup_cache(self):
        return list(range(50))

    def time_len(self, data):
        return len(data)


def timeraw_import_json():
    return "import json"


def timeraw_upper():
    return "text.upper()", "text = 'abc'"


def mem_list():
    return [0] * 100


def peakmem_list():
    return [0] * 100000


def track_answer():
    return 42


class _Private:
    def time_hidden(self):
        pass


class Abstract(abc.ABC):
    @abc.abstractmethod
    def run(self): ...

    def time_abstract(self):
        return self.run()
