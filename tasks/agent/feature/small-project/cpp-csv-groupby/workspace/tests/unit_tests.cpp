#include <sstream>

#include "bananabench_test.hpp"

#include "csv.hpp"
#include "query.hpp"
#include "table.hpp"

using namespace csvq;

BB_TEST(csv_and_queries) {
    std::istringstream in("name,city,age\r\n\"Smith, J\",Paris,41\nAnn,\"Lyon\",9\n\nBo,\"say \"\"hi\"\"\",30");
    Table t = load_table(in);
    BB_CHECK(t.header.size() == 3 && t.rows.size() == 3);
    BB_CHECK(t.rows[0][0] == "Smith, J" && t.rows[2][1] == "say \"hi\"");
    BB_CHECK(parse_filter("age>=30").op == ">=" && parse_filter("a!=b").column == "a");
    BB_CHECK(parse_sort("age:desc").descending && parse_sort("x:y").column == "x:y");
    Query q = parse_query({"--where", "age>20", "--sort", "age", "--select", "name"});
    Table r = run_query(q, t);
    BB_CHECK(r.rows.size() == 2 && r.rows[0][0] == "Bo");
    std::ostringstream out;
    write_row(out, {"a,b", "x\"y", "plain"});
    BB_CHECK(out.str() == "\"a,b\",\"x\"\"y\",plain\n");
    BB_CHECK(format_number(2.0) == "2" && format_number(10.0 / 4) == "2.5");
    BB_CHECK(!to_number("") && !to_number("12a") && *to_number("1e3") == 1000);
}

BB_MAIN()
