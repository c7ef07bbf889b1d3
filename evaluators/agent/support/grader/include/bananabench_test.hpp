// bananabench_test.hpp: the recorder for C++ hidden tests (bananabench's `cpp` runner).
//
//   BB_TEST(name) { BB_CHECK(cond); BB_CHECK_EQ(a, b); }   (wrap a or b in parentheses if it holds a comma)
//   BB_MAIN()
//
// Each test's outcome is appended to $BANANABENCH_REPORT as one JSON line the moment the test
// ends, so a program that exits early leaves the remaining tests missing (and the task failed).
// The exit status is for humans only.
#pragma once

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <sstream>
#include <string>
#include <vector>

namespace bananabench {

struct Failure {
    std::string message;
};

struct Case {
    const char* name;
    void (*run)();
};

inline std::vector<Case>& registry() {
    static std::vector<Case> cases;
    return cases;
}

struct Register {
    Register(const char* name, void (*run)()) { registry().push_back(Case{name, run}); }
};

inline void fail(const char* file, int line, const std::string& what) {
    std::ostringstream out;
    out << file << ":" << line << ": " << what;
    throw Failure{out.str()};
}

template <typename T>
auto show(std::ostringstream& out, const T& value, int) -> decltype(out << value, void()) { out << value; }

template <typename T>
void show(std::ostringstream& out, const T&, long) { out << "(value)"; }

template <typename A, typename B>
void check_eq(const A& a, const B& b, const char* text, const char* file, int line) {
    if (a == b) return;
    std::ostringstream out;
    out << text << ": ";
    show(out, a, 0);
    out << " != ";
    show(out, b, 0);
    fail(file, line, out.str());
}

inline std::string json_string(const std::string& text) {
    std::string out = "\"";
    for (unsigned char c : text) {
        if (c == '"' || c == '\\') { out += '\\'; out += static_cast<char>(c); }
        else if (c < 0x20) { char buf[8]; std::snprintf(buf, sizeof buf, "\\u%04x", c); out += buf; }
        else out += static_cast<char>(c);
    }
    return out + "\"";
}

inline int run_all() {
    const char* path = std::getenv("BANANABENCH_REPORT");
    const char* prefix_env = std::getenv("BANANABENCH_TEST_PREFIX");
    const std::string prefix = prefix_env ? prefix_env : "tests";
    std::FILE* record = path ? std::fopen(path, "a") : nullptr;
    int failed = 0;
    for (const Case& c : registry()) {
        std::string outcome = "passed", message;
        const auto started = std::chrono::steady_clock::now();
        try {
            c.run();
        } catch (const Failure& f) {
            outcome = "failed";
            message = f.message;
        } catch (const std::exception& e) {
            outcome = "error";
            message = std::string("exception: ") + e.what();
        } catch (...) {
            outcome = "error";
            message = "unknown exception";
        }
        const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
        failed += outcome != "passed";
        std::printf("%s %s%s%s\n", outcome.c_str(), c.name, message.empty() ? "" : ": ", message.c_str());
        std::fflush(stdout);
        if (record) {
            std::fprintf(record, "{\"id\": %s, \"outcome\": \"%s\", \"seconds\": %.4f, \"message\": %s}\n",
                         json_string(prefix + "::" + c.name).c_str(), outcome.c_str(), seconds,
                         json_string(message.substr(0, 2000)).c_str());
            std::fflush(record);
        }
    }
    return failed ? 1 : 0;
}

}  // namespace bananabench

#define BB_TEST(name)                                                                   \
    static void bb_test_##name();                                                       \
    static ::bananabench::Register bb_register_##name(#name, &bb_test_##name);          \
    static void bb_test_##name()

#define BB_CHECK(...)                                                                   \
    do {                                                                                \
        if (!(__VA_ARGS__)) ::bananabench::fail(__FILE__, __LINE__, "BB_CHECK(" #__VA_ARGS__ ")"); \
    } while (0)

#define BB_CHECK_EQ(a, b) ::bananabench::check_eq((a), (b), #a " == " #b, __FILE__, __LINE__)

#define BB_MAIN() \
    int main() { return ::bananabench::run_all(); }
