// A tiny native program for perflab's tests: counts the lines of a file (or of standard input)
// and reports how long the counting itself took on stderr ("count: N ns"), as a program that
// times its own inner phase does. "--off-by-one" gives a wrong count; "--exit N" exits with N.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

int main(int argc, char **argv) {
    const char *path = nullptr;
    bool off_by_one = false;
    int exit_status = 0;
    for (int i = 1; i < argc; ++i) {
        if (std::strcmp(argv[i], "--off-by-one") == 0) off_by_one = true;
        else if (std::strcmp(argv[i], "--exit") == 0 && i + 1 < argc) exit_status = std::atoi(argv[++i]);
        else path = argv[i];
    }
    FILE *in = path ? std::fopen(path, "rb") : stdin;
    if (!in) { std::perror(path); return 3; }
    std::string data;
    char buffer[65536];
    size_t got;
    while ((got = std::fread(buffer, 1, sizeof buffer, in)) > 0) data.append(buffer, got);
    auto start = std::chrono::steady_clock::now();
    long lines = 0;
    for (char c : data) lines += c == '\n';
    auto took = std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - start);
    std::printf("%ld\n", lines + (off_by_one ? 1 : 0));
    std::fprintf(stderr, "count: %lld ns\n", static_cast<long long>(took.count()));
    return exit_status;
}
