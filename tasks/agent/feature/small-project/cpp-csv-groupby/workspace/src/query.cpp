#include "query.hpp"

#include <algorithm>
#include <stdexcept>

namespace csvq {

std::vector<std::string> split(const std::string& text, char sep) {
    std::vector<std::string> parts;
    std::string cur;
    for (char c : text) {
        if (c == sep) {
            parts.push_back(cur);
            cur.clear();
        } else {
            cur += c;
        }
    }
    parts.push_back(cur);
    return parts;
}

Filter parse_filter(const std::string& text) {
    static const char* ops[] = {"!=", "<=", ">=", "=", "<", ">", "~"};
    size_t best = std::string::npos;
    std::string op;
    for (const char* candidate : ops) {
        size_t pos = text.find(candidate);
        if (pos != std::string::npos && (pos < best || (pos == best && std::string(candidate).size() > op.size()))) {
            best = pos;
            op = candidate;
        }
    }
    if (best == std::string::npos || best == 0) throw std::invalid_argument("bad filter: " + text);
    return Filter{text.substr(0, best), op, text.substr(best + op.size())};
}

Sort parse_sort(const std::string& text) {
    size_t colon = text.rfind(':');
    if (colon != std::string::npos) {
        std::string dir = text.substr(colon + 1);
        if (dir == "desc" || dir == "asc") return Sort{text.substr(0, colon), dir == "desc"};
    }
    if (text.empty()) throw std::invalid_argument("empty sort column");
    return Sort{text, false};
}

Query parse_query(const std::vector<std::string>& args) {
    Query q;
    for (size_t i = 0; i < args.size(); ++i) {
        const std::string& a = args[i];
        auto value = [&]() -> const std::string& {
            if (i + 1 >= args.size()) throw std::invalid_argument(a + " needs a value");
            return args[++i];
        };
        if (a == "--select") {
            q.select = split(value(), ',');
        } else if (a == "--where") {
            q.where.push_back(parse_filter(value()));
        } else if (a == "--sort") {
            q.sort = parse_sort(value());
        } else if (a == "--limit") {
            const std::string& v = value();
            if (v.empty() || v.find_first_not_of("0123456789") != std::string::npos)
                throw std::invalid_argument("--limit needs a whole number");
            q.limit = std::stoul(v);
        } else {
            throw std::invalid_argument("unknown option: " + a);
        }
    }
    return q;
}

bool matches(const Filter& f, const Table& t, const Row& row) {
    const std::string& cell = row[t.column(f.column)];
    if (f.op == "~") return cell.find(f.value) != std::string::npos;
    auto a = to_number(cell), b = to_number(f.value);
    if (f.op == "=") return a && b ? *a == *b : cell == f.value;
    if (f.op == "!=") return a && b ? *a != *b : cell != f.value;
    if (!a || !b) return false;
    if (f.op == "<") return *a < *b;
    if (f.op == "<=") return *a <= *b;
    if (f.op == ">") return *a > *b;
    return *a >= *b;
}

// Orders cells: numbers before text, numbers numerically, text lexicographically.
static bool cell_less(const std::string& x, const std::string& y) {
    auto a = to_number(x), b = to_number(y);
    if (a && b) return *a < *b;
    if (a || b) return bool(a);
    return x < y;
}

Table run_query(const Query& q, const Table& t) {
    for (const auto& f : q.where) t.column(f.column);  // report unknown columns even on empty tables
    std::vector<const Row*> kept;
    for (const auto& row : t.rows) {
        bool ok = std::all_of(q.where.begin(), q.where.end(), [&](const Filter& f) { return matches(f, t, row); });
        if (ok) kept.push_back(&row);
    }
    if (q.sort) {
        size_t col = t.column(q.sort->column);
        bool desc = q.sort->descending;
        std::stable_sort(kept.begin(), kept.end(), [&](const Row* a, const Row* b) {
            return desc ? cell_less((*b)[col], (*a)[col]) : cell_less((*a)[col], (*b)[col]);
        });
    }
    if (q.limit && kept.size() > *q.limit) kept.resize(*q.limit);
    std::vector<size_t> cols;
    Table out;
    if (q.select.empty()) {
        for (size_t i = 0; i < t.header.size(); ++i) cols.push_back(i);
    } else {
        for (const auto& name : q.select) cols.push_back(t.column(name));
    }
    for (size_t c : cols) out.header.push_back(t.header[c]);
    for (const Row* row : kept) {
        Row r;
        for (size_t c : cols) r.push_back((*row)[c]);
        out.rows.push_back(std::move(r));
    }
    return out;
}

}  // namespace csvq
