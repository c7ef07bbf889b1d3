// g++ -std=c++17 -Wall -Iinclude examples/demo.cpp -o demo && ./demo
#include <iostream>
#include <string>

#include "bus/event_bus.hpp"

struct KeyPressed {
    char key;
};
struct MouseClicked {
    int x, y;
};
struct Quit {};

static void on_key(const KeyPressed& k) { std::cout << "key " << k.key << "\n"; }

int main() {
    bus::RecordingBus<KeyPressed, MouseClicked, Quit> events;
    int clicks = 0;
    events.subscribe(on_key);
    auto sub = events.subscribe([&](const MouseClicked& m) {
        ++clicks;
        std::cout << "click at " << m.x << "," << m.y << "\n";
    });
    events.subscribe([count = 0](KeyPressed) mutable { ++count; });
    events.subscribe<Quit>([](const auto&) { std::cout << "bye\n"; });

    events.publish(KeyPressed{'w'});
    events.publish(MouseClicked{3, 4});
    events.unsubscribe(sub);
    events.publish(MouseClicked{5, 6});
    decltype(events)::any_event next = Quit{};
    events.publish_any(next);

    auto describe = bus::overloaded{
        [](const KeyPressed& k) { return std::string("key ") + k.key; },
        [](const MouseClicked&) { return std::string("click"); },
        [](const Quit&) { return std::string("quit"); },
    };
    std::cout << std::visit(describe, next) << "\n";
    std::cout << "clicks=" << clicks << " recorded=" << events.history().size()
              << " unheard=" << events.unheard() << "\n";
}
