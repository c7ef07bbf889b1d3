// Sensors produce readings; the registry polls them and keeps a history per sensor.
#pragma once

#include <fstream>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "ring_buffer.hpp"

class Sensor {
public:
    explicit Sensor(std::string name);
    ~Sensor() = default;
    virtual int read_millivolts() = 0;
    virtual bool healthy() const { return true; }
    const std::string& name() const { return name_; }

protected:
    std::string name_;
};

// Reads one integer per line from a file (e.g. a sysfs attribute).
class FileSensor : public Sensor {
public:
    FileSensor(std::string name, const std::string& path);
    int read_millivolts() override;
    bool healthy() const override { return in_.good(); }

private:
    std::ifstream in_;
    std::vector<char> buffer_;
};

// A sensor backed by a function, used in tests and for simulated hardware.
class FunctionSensor : public Sensor {
public:
    FunctionSensor(std::string name, std::function<int()> fn) : Sensor(std::move(name)), fn_(std::move(fn)) {}
    int read_millivolts() override { return fn_(); }

private:
    std::function<int()> fn_;
};

class Registry {
public:
    explicit Registry(std::size_t history) : history_(history) {}
    void add(std::unique_ptr<Sensor> sensor);
    void poll();
    void drop_unhealthy();
    std::vector<int> history(const std::string& name) const;
    std::size_t size() const { return sensors_.size(); }

private:
    struct Entry {
        std::unique_ptr<Sensor> sensor;
        RingBuffer<int> readings;
    };
    std::size_t history_;
    std::vector<Entry> sensors_;
};

void log_line(const std::string& text);
