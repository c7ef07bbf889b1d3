// sensorlog: polls a few sensors every second and prints a summary line.
#include <chrono>
#include <iostream>
#include <memory>
#include <thread>

#include "sensors.hpp"
#include "stats.hpp"

int main(int argc, char** argv) {
    int rounds = argc > 1 ? std::atoi(argv[1]) : 10;
    Registry registry(3600);
    registry.add(std::make_unique<FileSensor>("battery", "/sys/class/power_supply/BAT0/voltage_now"));
    int tick = 0;
    registry.add(std::make_unique<FunctionSensor>("simulated", [&tick] { return 3300 + (tick++ % 7) * 10; }));
    for (int i = 0; i < rounds; ++i) {
        registry.poll();
        registry.drop_unhealthy();
        std::this_thread::sleep_for(std::chrono::milliseconds(rounds > 1 ? 1000 : 0));
    }
    Summary s = summarize(registry.history("simulated"));
    std::cout << "simulated: n=" << s.count << " min=" << s.min << " max=" << s.max << " mean=" << s.mean << '\n';
    for (int v : newest_first(registry.history("simulated"), 3)) std::cout << v << ' ';
    std::cout << '\n';
    return 0;
}
