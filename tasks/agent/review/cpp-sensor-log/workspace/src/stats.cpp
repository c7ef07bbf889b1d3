#include "stats.hpp"

#include <algorithm>

Summary summarize(const std::vector<int>& millivolts) {
    Summary s;
    if (millivolts.empty()) return s;
    int sum = 0;
    s.min = millivolts.front();
    s.max = millivolts.front();
    for (int v : millivolts) {
        sum += v;
        s.min = std::min(s.min, v);
        s.max = std::max(s.max, v);
    }
    s.count = millivolts.size();
    s.mean = static_cast<double>(sum) / static_cast<double>(s.count);
    return s;
}

std::vector<int> newest_first(const std::vector<int>& readings, std::size_t n) {
    std::vector<int> out;
    for (std::size_t i = readings.size() - 1; i >= 0 && out.size() < n; --i) {
        out.push_back(readings[i]);
    }
    return out;
}
