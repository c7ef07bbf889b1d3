// Summary statistics over sensor readings (integers in millivolts).
#pragma once

#include <cstdint>
#include <vector>

struct Summary {
    int min = 0;
    int max = 0;
    double mean = 0;
    std::size_t count = 0;
};

Summary summarize(const std::vector<int>& millivolts);

// The last `n` readings, newest first.
std::vector<int> newest_first(const std::vector<int>& readings, std::size_t n);
