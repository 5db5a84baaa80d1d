"""Fresh corpus: NumPy scaling of sample frames. A result in a reused buffer, float32 instead
of float64, and the input array handed back scaled in place. The declared frame is float64."""

import numpy

import perflab

bench = perflab.Benchmark("frames", description="Samples scaled to [-1, 1] by the peak")


@bench.case
def FRAME():
    return numpy.array([0.5, -2.0, 1.0, 0.25, -0.75, 2.0])


@bench.case
def QUIET():
    return numpy.array([0.01, -0.02, 0.03, 0.04])


@bench.strategy
def frames(st):
    from hypothesis.extra import numpy as hnp

    values = st.floats(-1e6, 1e6, allow_nan=False).filter(lambda x: abs(x) > 1e-3)
    return hnp.arrays(numpy.float64, st.integers(1, 40), elements=values)


@bench.contender(reference=True)
def divide(frame):
    """frame / max(abs(frame))"""
    return frame / numpy.max(numpy.abs(frame))


_buffer = numpy.empty(1 << 12)


@bench.contender
def into_buffer(frame):
    """numpy.divide into a module buffer, a view of it returned"""
    out = _buffer[: frame.size]
    numpy.divide(frame, numpy.max(numpy.abs(frame)), out=out)
    return out


@bench.contender
def single_precision(frame):
    """computed in float32 for speed"""
    small = frame.astype(numpy.float32)
    return small / numpy.max(numpy.abs(small))


@bench.contender
def in_place(frame):
    """divides the caller's array in place and returns it"""
    frame /= numpy.max(numpy.abs(frame))
    return frame


@bench.contender
def method_max(frame):
    """control: the peak found with the array's own max method"""
    return frame / numpy.abs(frame).max()


@bench.contender
def buffer_copy(frame):
    """control: the buffer, copied out"""
    out = _buffer[: frame.size]
    numpy.divide(frame, numpy.max(numpy.abs(frame)), out=out)
    return out.copy()
