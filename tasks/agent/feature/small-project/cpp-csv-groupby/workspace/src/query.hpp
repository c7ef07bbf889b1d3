// Queries over a table: filter rows, pick columns, sort, limit.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "table.hpp"

namespace csvq {

struct Filter {
    std::string column;
    std::string op;  // = != < <= > >= ~ (substring)
    std::string value;
};

struct Sort {
    std::string column;
    bool descending = false;
};

struct Query {
    std::vector<std::string> select;  // empty: all columns
    std::vector<Filter> where;        // all must hold
    std::optional<Sort> sort;
    std::optional<size_t> limit;
};

// Parses "price>=10", "name~ann", "city=Paris"; throws std::invalid_argument.
Filter parse_filter(const std::string& text);

// Parses "price" or "price:desc" / "price:asc".
Sort parse_sort(const std::string& text);

// Parses command-line options (--select a,b --where EXPR --sort SPEC --limit N); throws std::invalid_argument.
Query parse_query(const std::vector<std::string>& args);

bool matches(const Filter& f, const Table& t, const Row& row);

// Runs the query; the result's header holds the output column names.
Table run_query(const Query& q, const Table& t);

std::vector<std::string> split(const std::string& text, char sep);

}  // namespace csvq
