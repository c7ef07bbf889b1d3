// CSV reading and writing (RFC 4180: quoted fields, doubled quotes, CRLF or LF line ends).
#pragma once

#include <istream>
#include <ostream>
#include <stdexcept>
#include <string>
#include <vector>

namespace csvq {

using Row = std::vector<std::string>;

struct CsvError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

// Reads all records; throws CsvError on an unterminated quoted field.
std::vector<Row> read_csv(std::istream& in);

// Writes one record, quoting fields that need it.
void write_row(std::ostream& out, const Row& row);

}  // namespace csvq
