// A streaming JSON scanner in two variants, for perflab's built-in case study native_json_scan.
//
// It counts what a JSON document holds (objects, arrays, strings, numbers, literals and the bytes
// inside strings) in one pass, the first stage of a streaming parser. The input can arrive in
// chunks of any size: the scanner's state (inside a string, after a backslash, inside a number
// or a literal) is carried from one chunk to the next, so every split gives the same counts.
//
//   json_scan simple|fast [--chunk N] [--forget-state] FILE
//
// simple: one byte at a time through the state machine.
// fast:   inside strings, jumps with memchr to the next quote or backslash (SIMD in libc).
// --forget-state: the classic streaming bug, on purpose: a number cut by a chunk boundary is
//   counted as two numbers (perflab shows it NOT EQUIVALENT with the first difference).
// Prints the counts as JSON on stdout and "scan: N ns" (the scan alone, without reading the
// file) on stderr.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace scan {

enum class State { Outside, String, Escape, Number, Literal };

struct Counts {
    long objects = 0, arrays = 0, strings = 0, numbers = 0, literals = 0, string_bytes = 0;
};

class Scanner {
   public:
    explicit Scanner(bool fast) : fast_(fast) {}

    void feed(const char *p, const char *end) {
        while (p < end) {
            if (state_ == State::String && fast_) {
                p = skip_string(p, end);
            } else {
                step(*p++);
            }
        }
    }

    void forget_number() {
        if (state_ == State::Number) state_ = State::Outside;
    }

    const Counts &counts() const { return counts_; }

   private:
    const char *skip_string(const char *p, const char *end) {
        const char *quote = static_cast<const char *>(std::memchr(p, '"', end - p));
        const char *stop = quote ? quote : end;
        const char *backslash = static_cast<const char *>(std::memchr(p, '\\', stop - p));
        if (backslash) stop = backslash;
        counts_.string_bytes += stop - p;
        if (stop < end) step(*stop++);
        return stop;
    }

    void step(char c) {
        switch (state_) {
            case State::String:
                if (c == '"') {
                    state_ = State::Outside;
                } else {
                    ++counts_.string_bytes;
                    if (c == '\\') state_ = State::Escape;
                }
                return;
            case State::Escape:
                ++counts_.string_bytes;
                state_ = State::String;
                return;
            case State::Number:
                if ((c >= '0' && c <= '9') || c == '.' || c == 'e' || c == 'E' || c == '+' || c == '-') return;
                state_ = State::Outside;
                break;
            case State::Literal:
                if (c >= 'a' && c <= 'z') return;
                state_ = State::Outside;
                break;
            case State::Outside:
                break;
        }
        switch (c) {
            case '{': ++counts_.objects; break;
            case '[': ++counts_.arrays; break;
            case '"': ++counts_.strings; state_ = State::String; break;
            case 't': case 'f': case 'n': ++counts_.literals; state_ = State::Literal; break;
            default:
                if (c == '-' || (c >= '0' && c <= '9')) {
                    ++counts_.numbers;
                    state_ = State::Number;
                }
        }
    }

    bool fast_;
    State state_ = State::Outside;
    Counts counts_;
};

}  // namespace scan

int main(int argc, char **argv) {
    bool fast = false, forget = false;
    size_t chunk = 0;
    const char *path = nullptr;
    for (int i = 1; i < argc; ++i) {
        std::string arg = argv[i];
        if (arg == "simple" || arg == "fast") fast = arg == "fast";
        else if (arg == "--chunk" && i + 1 < argc) chunk = std::strtoul(argv[++i], nullptr, 10);
        else if (arg == "--forget-state") forget = true;
        else path = argv[i];
    }
    if (!path) {
        std::fprintf(stderr, "usage: json_scan simple|fast [--chunk N] [--forget-state] FILE\n");
        return 2;
    }
    FILE *file = std::fopen(path, "rb");
    if (!file) {
        std::perror(path);
        return 1;
    }
    std::vector<char> data;
    char buffer[1 << 16];
    size_t got;
    while ((got = std::fread(buffer, 1, sizeof buffer, file)) > 0) data.insert(data.end(), buffer, buffer + got);
    std::fclose(file);

    auto start = std::chrono::steady_clock::now();
    scan::Scanner scanner(fast);
    const char *p = data.data(), *end = data.data() + data.size();
    size_t step = chunk ? chunk : data.size();
    while (p < end) {
        const char *stop = end - p > static_cast<long>(step) ? p + step : end;
        scanner.feed(p, stop);
        if (forget) scanner.forget_number();
        p = stop;
    }
    auto took = std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - start);

    const scan::Counts &c = scanner.counts();
    std::printf("{\"objects\": %ld, \"arrays\": %ld, \"strings\": %ld, \"numbers\": %ld, \"literals\": %ld, "
                "\"string_bytes\": %ld}\n",
                c.objects, c.arrays, c.strings, c.numbers, c.literals, c.string_bytes);
    std::fprintf(stderr, "scan: %lld ns\n", static_cast<long long>(took.count()));
    return 0;
}
