#include <cassert>
#include <iostream>
#include <sstream>

#include "csv.hpp"
#include "query.hpp"
#include "table.hpp"

using namespace csvq;

int main() {
    std::istringstream in("name,city,age\r\n\"Smith, J\",Paris,41\nAnn,\"Lyon\",9\n\nBo,\"say \"\"hi\"\"\",30");
    Table t = load_table(in);
    assert(t.header.size() == 3 && t.rows.size() == 3);
    assert(t.rows[0][0] == "Smith, J" && t.rows[2][1] == "say \"hi\"");
    assert(parse_filter("age>=30").op == ">=" && parse_filter("a!=b").column == "a");
    assert(parse_sort("age:desc").descending && parse_sort("x:y").column == "x:y");
    Query q = parse_query({"--where", "age>20", "--sort", "age", "--select", "name"});
    Table r = run_query(q, t);
    assert(r.rows.size() == 2 && r.rows[0][0] == "Bo");
    std::ostringstream out;
    write_row(out, {"a,b", "x\"y", "plain"});
    assert(out.str() == "\"a,b\",\"x\"\"y\",plain\n");
    assert(format_number(2.0) == "2" && format_number(10.0 / 4) == "2.5");
    assert(!to_number("") && !to_number("12a") && *to_number("1e3") == 1000);
    std::cout << "unit tests passed\n";
    return 0;
}
