#include "query.hpp"

#include <algorithm>
#include <map>
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

Aggregate parse_aggregate(const std::string& text) {
    size_t colon = text.find(':');
    std::string func = text.substr(0, colon);
    std::string column = colon == std::string::npos ? "" : text.substr(colon + 1);
    if (func != "count" && func != "sum" && func != "avg" && func != "min" && func != "max")
        throw std::invalid_argument("unknown aggregate: " + text);
    if (func != "count" && column.empty()) throw std::invalid_argument(func + " needs a column: " + text);
    if (colon != std::string::npos && column.empty()) throw std::invalid_argument("empty column in " + text);
    return Aggregate{func, column, text};
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
        } else if (a == "--group-by") {
            q.group_by = split(value(), ',');
        } else if (a == "--agg") {
            for (const auto& spec : split(value(), ',')) q.aggregates.push_back(parse_aggregate(spec));
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
    if (!q.select.empty() && (!q.group_by.empty() || !q.aggregates.empty()))
        throw std::invalid_argument("--select cannot be combined with --group-by/--agg");
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

static std::vector<const Row*> filtered(const Query& q, const Table& t) {
    for (const auto& f : q.where) t.column(f.column);  // report unknown columns even on empty tables
    std::vector<const Row*> kept;
    for (const auto& row : t.rows) {
        bool ok = std::all_of(q.where.begin(), q.where.end(), [&](const Filter& f) { return matches(f, t, row); });
        if (ok) kept.push_back(&row);
    }
    return kept;
}

static void sort_and_limit(const Query& q, const Row& header, std::vector<const Row*>& rows) {
    if (q.sort) {
        Table shape;
        shape.header = header;
        size_t col = shape.column(q.sort->column);
        bool desc = q.sort->descending;
        std::stable_sort(rows.begin(), rows.end(), [&](const Row* a, const Row* b) {
            return desc ? cell_less((*b)[col], (*a)[col]) : cell_less((*a)[col], (*b)[col]);
        });
    }
    if (q.limit && rows.size() > *q.limit) rows.resize(*q.limit);
}

struct KeyLess {
    bool operator()(const Row& a, const Row& b) const {
        for (size_t i = 0; i < a.size(); ++i) {
            if (cell_less(a[i], b[i])) return true;
            if (cell_less(b[i], a[i])) return false;
            if (a[i] != b[i]) return a[i] < b[i];  // equal numbers written differently ("1" vs "1.0")
        }
        return false;
    }
};

static std::string aggregate(const Aggregate& agg, const Table& t, const std::vector<const Row*>& rows) {
    if (agg.func == "count" && agg.column.empty()) return std::to_string(rows.size());
    size_t col = t.column(agg.column);
    if (agg.func == "count") {
        size_t n = 0;
        for (const Row* r : rows) n += !(*r)[col].empty();
        return std::to_string(n);
    }
    double sum = 0, lo = 0, hi = 0;
    size_t n = 0;
    for (const Row* r : rows) {
        auto v = to_number((*r)[col]);
        if (!v) continue;
        lo = n ? std::min(lo, *v) : *v;
        hi = n ? std::max(hi, *v) : *v;
        sum += *v;
        ++n;
    }
    if (agg.func == "sum") return format_number(sum);
    if (n == 0) return "";
    if (agg.func == "avg") return format_number(sum / n);
    return format_number(agg.func == "min" ? lo : hi);
}

static Table run_grouped(const Query& q, const Table& t) {
    std::vector<size_t> key_cols;
    for (const auto& name : q.group_by) key_cols.push_back(t.column(name));
    for (const auto& agg : q.aggregates)
        if (!agg.column.empty()) t.column(agg.column);
    std::map<Row, std::vector<const Row*>, KeyLess> groups;
    for (const Row* row : filtered(q, t)) {
        Row key;
        for (size_t c : key_cols) key.push_back((*row)[c]);
        groups[key].push_back(row);
    }
    if (q.group_by.empty() && groups.empty()) groups[Row{}];
    Table out;
    out.header = q.group_by;
    for (const auto& agg : q.aggregates) out.header.push_back(agg.name);
    std::vector<Row> built;
    for (const auto& [key, rows] : groups) {
        Row r = key;
        for (const auto& agg : q.aggregates) r.push_back(aggregate(agg, t, rows));
        built.push_back(std::move(r));
    }
    std::vector<const Row*> order;
    for (const auto& r : built) order.push_back(&r);
    sort_and_limit(q, out.header, order);
    for (const Row* r : order) out.rows.push_back(*r);
    return out;
}

Table run_query(const Query& q, const Table& t) {
    if (!q.group_by.empty() || !q.aggregates.empty()) return run_grouped(q, t);
    std::vector<const Row*> kept = filtered(q, t);
    if (q.sort) t.column(q.sort->column);
    sort_and_limit(q, t.header, kept);
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
