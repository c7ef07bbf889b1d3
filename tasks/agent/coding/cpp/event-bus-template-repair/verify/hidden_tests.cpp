// Hidden tests for bus/event_bus.hpp (C++17).
#include <cstdio>

#include "bananabench_test.hpp"
#include <functional>
#include <string>
#include <type_traits>
#include <variant>
#include <vector>

#include "bus/event_bus.hpp"

static int failures = 0;
#define CHECK(cond)                                                     \
    do {                                                                \
        if (!(cond)) {                                                  \
            std::printf("FAIL %s:%d: %s\n", __FILE__, __LINE__, #cond); \
            ++failures;                                                 \
        }                                                               \
    } while (0)

struct A { int v; };
struct B { std::string s; };
struct C {};
struct NotOnBus {};

using Bus = bus::EventBus<A, B, C>;
static_assert(Bus::handles<A> && Bus::handles<B> && Bus::handles<C>);
static_assert(!Bus::handles<NotOnBus>);
static_assert(!Bus::handles<const A>);
static_assert(std::is_same_v<Bus::any_event, std::variant<A, B, C>>);
static_assert(std::is_base_of_v<bus::EventBus<A, C>, bus::RecordingBus<A, C>>);
static_assert(bus::EventBus<C>::handles<C>);

static std::vector<std::string> trace;
static void free_a(const A& a) { trace.push_back("free " + std::to_string(a.v)); }
static void free_b_by_value(B b) { trace.push_back("free b " + b.s); }

struct Functor {
    int* hits;
    void operator()(const C&) const { ++*hits; }
};

BB_TEST(event_bus_behaviour) {
    {
        Bus b;
        auto s1 = b.subscribe(free_a);
        auto s2 = b.subscribe(&free_b_by_value);
        auto s3 = b.subscribe([](const A& a) { trace.push_back("lambda " + std::to_string(a.v)); });
        int count = 0;
        b.subscribe([count](A) mutable { ++count; trace.push_back("mutable " + std::to_string(count)); });
        int hits = 0;
        b.subscribe(Functor{&hits});
        b.subscribe(std::function<void(const B&)>([](const B& x) { trace.push_back("function " + x.s); }));
        b.subscribe<C>([&](const auto&) { ++hits; });
        CHECK(b.handler_count<A>() == 3 && b.handler_count<B>() == 2 && b.handler_count<C>() == 2);

        CHECK(b.publish(A{1}) == 3);
        CHECK(b.publish(A{2}) == 3);
        CHECK(b.publish(B{"x"}) == 2);
        CHECK(b.publish(C{}) == 2 && hits == 2);
        std::vector<std::string> want = {"free 1", "lambda 1", "mutable 1", "free 2", "lambda 2", "mutable 2",
                                         "free b x", "function x"};
        CHECK(trace == want);

        CHECK(b.unsubscribe(s3));
        CHECK(!b.unsubscribe(s3));
        CHECK(b.unsubscribe(s2));
        CHECK(b.handler_count<A>() == 2 && b.handler_count<B>() == 1);
        trace.clear();
        CHECK(b.publish(A{3}) == 2);
        CHECK((trace == std::vector<std::string>{"free 3", "mutable 3"}));
        CHECK(b.unsubscribe(s1));
        CHECK(!b.unsubscribe(bus::Subscription{0, 999}));
        CHECK(!b.unsubscribe(bus::Subscription{1, s1.id}));  // right id, wrong type: nothing removed
        CHECK(b.handler_count<A>() == 1);

        Bus::any_event ev = B{"via variant"};
        trace.clear();
        CHECK(b.publish_any(ev) == 1);
        CHECK((trace == std::vector<std::string>{"function via variant"}));
        CHECK(b.publish_any(Bus::any_event{C{}}) == 2 && hits == 4);
    }
    {
        // changes made while publishing take effect from the next publish
        Bus b;
        std::vector<int> seen;
        bus::Subscription self{};
        self = b.subscribe([&](const A& a) {
            seen.push_back(a.v);
            b.unsubscribe(self);
            b.subscribe([&](const A& inner) { seen.push_back(100 + inner.v); });
        });
        b.subscribe([&](const A& a) { seen.push_back(10 + a.v); });
        CHECK(b.publish(A{1}) == 2);
        CHECK((seen == std::vector<int>{1, 11}));
        seen.clear();
        CHECK(b.publish(A{2}) == 2);
        CHECK((seen == std::vector<int>{12, 102}));
    }
    {
        // subscription ids are unique across event types
        Bus b;
        auto x = b.subscribe([](const A&) {});
        auto y = b.subscribe([](const B&) {});
        auto z = b.subscribe([](const A&) {});
        CHECK(x.id != y.id && y.id != z.id && x.id != z.id);
        CHECK(x.type_index == 0 && y.type_index == 1 && z.type_index == 0);
        CHECK(b.unsubscribe(x) && b.handler_count<A>() == 1);
    }
    {
        bus::RecordingBus<A, B, C> r;
        int as = 0;
        r.subscribe([&](const A&) { ++as; });
        CHECK(r.publish(A{1}) == 1);
        CHECK(r.publish(C{}) == 0);
        CHECK(r.publish(B{"b"}) == 0);
        CHECK(r.publish_any(bus::RecordingBus<A, B, C>::any_event{A{2}}) == 1);
        CHECK(r.publish_any(bus::RecordingBus<A, B, C>::any_event{C{}}) == 0);
        CHECK((r.history() == std::vector<std::size_t>{0, 2, 1, 0, 2}));
        CHECK(r.unheard() == 3);
        CHECK(as == 2);
        bus::EventBus<A, B, C>& base = r;
        CHECK(base.publish(A{3}) == 1);  // through the base: dispatched, not recorded
        CHECK(as == 3 && r.history().size() == 5);
    }
    {
        auto visitor = bus::overloaded{
            [](const A& a) { return a.v; },
            [](const B& b) { return static_cast<int>(b.s.size()); },
            [](const C&) { return -1; },
        };
        CHECK(std::visit(visitor, Bus::any_event{A{7}}) == 7);
        CHECK(std::visit(visitor, Bus::any_event{B{"four"}}) == 4);
        CHECK(std::visit(visitor, Bus::any_event{C{}}) == -1);
        bus::overloaded single{[](int x) { return x * 2; }};
        CHECK(single(21) == 42);
    }
    BB_CHECK_EQ(failures, 0);
}

BB_MAIN()
