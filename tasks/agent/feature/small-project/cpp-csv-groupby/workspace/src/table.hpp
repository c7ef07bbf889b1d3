// A CSV file with a header row.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "csv.hpp"

namespace csvq {

struct Table {
    Row header;
    std::vector<Row> rows;  // every row has header.size() fields (short rows are padded)

    // Index of a column by name; throws std::invalid_argument("unknown column: NAME").
    size_t column(const std::string& name) const;
};

Table load_table(std::istream& in);

// Parses a whole cell as a number ("12", "-3.5", "1e3"); nullopt for anything else, including "".
std::optional<double> to_number(const std::string& cell);

// Formats a number like printf("%.10g").
std::string format_number(double value);

}  // namespace csvq
