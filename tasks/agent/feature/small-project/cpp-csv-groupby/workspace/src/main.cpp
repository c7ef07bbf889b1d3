// csvq FILE [--select a,b] [--where EXPR]... [--sort COL[:desc]] [--limit N]
// Reads a CSV file with a header row ("-" for stdin) and prints the query result as CSV.
#include <fstream>
#include <iostream>
#include <stdexcept>

#include "csv.hpp"
#include "query.hpp"
#include "table.hpp"

int main(int argc, char** argv) {
    if (argc < 2) {
        std::cerr << "usage: csvq FILE [--select a,b] [--where EXPR]... [--sort COL[:desc]] [--limit N]\n";
        return 2;
    }
    std::string path = argv[1];
    std::vector<std::string> args(argv + 2, argv + argc);
    try {
        csvq::Query q = csvq::parse_query(args);
        csvq::Table t;
        if (path == "-") {
            t = csvq::load_table(std::cin);
        } else {
            std::ifstream in(path, std::ios::binary);
            if (!in) {
                std::cerr << "csvq: cannot open " << path << "\n";
                return 2;
            }
            t = csvq::load_table(in);
        }
        csvq::Table result = csvq::run_query(q, t);
        csvq::write_row(std::cout, result.header);
        for (const auto& row : result.rows) csvq::write_row(std::cout, row);
    } catch (const std::invalid_argument& e) {
        std::cerr << "csvq: " << e.what() << "\n";
        return 2;
    } catch (const csvq::CsvError& e) {
        std::cerr << "csvq: " << path << ": " << e.what() << "\n";
        return 1;
    }
    return 0;
}
