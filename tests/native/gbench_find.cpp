// A tiny Google Benchmark program for perflab's import tests: two ways to find a byte.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstring>
#include <string>

static void BM_memchr(benchmark::State &state) {
    std::string hay(state.range(0), 'a');
    for (auto _ : state) benchmark::DoNotOptimize(std::memchr(hay.data(), 'z', hay.size()));
    state.SetBytesProcessed(state.iterations() * state.range(0));
}
BENCHMARK(BM_memchr)->Arg(1024)->Arg(16384);

static void BM_find(benchmark::State &state) {
    std::string hay(state.range(0), 'a');
    for (auto _ : state) benchmark::DoNotOptimize(std::find(hay.begin(), hay.end(), 'z'));
    state.SetBytesProcessed(state.iterations() * state.range(0));
}
BENCHMARK(BM_find)->Arg(1024)->Arg(16384);

BENCHMARK_MAIN();
