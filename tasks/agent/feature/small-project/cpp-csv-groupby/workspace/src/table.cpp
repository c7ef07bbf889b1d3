#include "table.hpp"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>

namespace csvq {

size_t Table::column(const std::string& name) const {
    for (size_t i = 0; i < header.size(); ++i)
        if (header[i] == name) return i;
    throw std::invalid_argument("unknown column: " + name);
}

Table load_table(std::istream& in) {
    Table t;
    auto rows = read_csv(in);
    if (rows.empty()) return t;
    t.header = rows.front();
    for (size_t i = 1; i < rows.size(); ++i) {
        Row r = rows[i];
        if (r.size() == 1 && r[0].empty()) continue;  // blank line
        r.resize(t.header.size());
        t.rows.push_back(std::move(r));
    }
    return t;
}

std::optional<double> to_number(const std::string& cell) {
    if (cell.empty() || std::isspace(static_cast<unsigned char>(cell.front()))) return std::nullopt;
    const char* begin = cell.c_str();
    char* end = nullptr;
    double v = std::strtod(begin, &end);
    if (end != begin + cell.size() || !std::isfinite(v)) return std::nullopt;
    return v;
}

std::string format_number(double value) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.10g", value);
    return buf;
}

}  // namespace csvq
