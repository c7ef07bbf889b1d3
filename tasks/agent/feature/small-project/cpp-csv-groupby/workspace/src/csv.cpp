#include "csv.hpp"

namespace csvq {

std::vector<Row> read_csv(std::istream& in) {
    std::vector<Row> rows;
    Row row;
    std::string field;
    bool quoted = false, field_started = false, any = false;
    long line = 1;
    char c;
    auto end_field = [&] {
        row.push_back(field);
        field.clear();
        field_started = false;
    };
    auto end_row = [&] {
        end_field();
        rows.push_back(row);
        row.clear();
    };
    while (in.get(c)) {
        any = true;
        if (quoted) {
            if (c == '"') {
                if (in.peek() == '"') {
                    in.get(c);
                    field += '"';
                } else {
                    quoted = false;
                }
            } else {
                if (c == '\n') ++line;
                field += c;
            }
            continue;
        }
        if (c == '"' && !field_started) {
            quoted = true;
            field_started = true;
        } else if (c == ',') {
            end_field();
        } else if (c == '\r' && in.peek() == '\n') {
            continue;
        } else if (c == '\n') {
            end_row();
            ++line;
            any = false;
        } else {
            field += c;
            field_started = true;
        }
    }
    if (quoted) throw CsvError("unterminated quoted field (started before line " + std::to_string(line) + ")");
    if (any) end_row();
    return rows;
}

void write_row(std::ostream& out, const Row& row) {
    for (size_t i = 0; i < row.size(); ++i) {
        if (i) out << ',';
        const std::string& f = row[i];
        if (f.find_first_of(",\"\n\r") != std::string::npos || (!f.empty() && (f.front() == ' ' || f.back() == ' '))) {
            out << '"';
            for (char c : f) {
                if (c == '"') out << '"';
                out << c;
            }
            out << '"';
        } else {
            out << f;
        }
    }
    out << '\n';
}

}  // namespace csvq
