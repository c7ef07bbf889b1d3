// g++ -std=c++20 -Iinclude examples/demo.cpp -o build/demo && ./build/demo
#include <cstdio>

#include "interval_map.hpp"

int main() {
    interval_map<int, char> m('A');
    m.assign(1, 3, 'B');
    m.assign(5, 10, 'C');
    m.assign(2, 6, 'B');
    for (int k = 0; k < 12; ++k) {
        std::printf("%d:%c ", k, m[k]);
    }
    std::printf("\n");  // expected: 0:A 1:B 2:B 3:B 4:B 5:B 6:C 7:C 8:C 9:C 10:A 11:A
    for (auto const& [key, value] : m.segments()) {
        std::printf("[%d -> %c] ", key, value);
    }
    std::printf("\n");  // expected: [1 -> B] [6 -> C] [10 -> A]
}
