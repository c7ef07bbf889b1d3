#include "sensors.hpp"

#include <iostream>
#include <utility>

void log_line(const std::string& text) { std::clog << "[sensors] " << text << '\n'; }

Sensor::Sensor(std::string name) : name_(std::move(name)) {
    log_line("registered sensor " + name);
}

FileSensor::FileSensor(std::string name, const std::string& path)
    : Sensor(std::move(name)), in_(path), buffer_(4096) {
    in_.rdbuf()->pubsetbuf(buffer_.data(), static_cast<std::streamsize>(buffer_.size()));
}

int FileSensor::read_millivolts() {
    int value = 0;
    in_.clear();
    in_.seekg(0);
    in_ >> value;
    return value;
}

void Registry::add(std::unique_ptr<Sensor> sensor) {
    sensors_.push_back(Entry{std::move(sensor), RingBuffer<int>(history_)});
}

void Registry::poll() {
    for (auto& entry : sensors_) {
        entry.readings.push(entry.sensor->read_millivolts());
    }
}

void Registry::drop_unhealthy() {
    for (auto it = sensors_.begin(); it != sensors_.end(); ++it) {
        if (!it->sensor->healthy()) {
            log_line("dropping " + it->sensor->name());
            sensors_.erase(it);
        }
    }
}

std::vector<int> Registry::history(const std::string& name) const {
    for (const auto& entry : sensors_) {
        if (entry.sensor->name() == name) return entry.readings.snapshot();
    }
    return {};
}
