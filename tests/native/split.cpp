// A native program with a known split of work for perflab's profile tests and figures:
// split::heavy does three times the iterations of split::light, with the same loop body.
#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace split {
__attribute__((noinline)) double heavy(long n) {
    double total = 0;
    for (long i = 0; i < n; ++i) total += std::sqrt(static_cast<double>(i) + total * 1e-12);
    return total;
}

__attribute__((noinline)) double light(long n) {
    double total = 0;
    for (long i = 0; i < n; ++i) total += std::sqrt(static_cast<double>(i) + total * 1e-12);
    return total;
}
}  // namespace split

int main(int argc, char **argv) {
    long n = argc > 1 ? std::atol(argv[1]) : 10000000;
    std::printf("%.1f\n", split::heavy(3 * n) + split::light(n));
    return 0;
}
