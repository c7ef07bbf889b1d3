// A fixed-capacity ring buffer: pushing into a full buffer overwrites the oldest element.
#pragma once

#include <cstddef>
#include <stdexcept>
#include <vector>

template <typename T>
class RingBuffer {
public:
    explicit RingBuffer(std::size_t capacity) : data_(capacity), capacity_(capacity) {
        if (capacity == 0) throw std::invalid_argument("RingBuffer capacity must be positive");
    }

    void push(const T& value) {
        data_[(tail_ + size_) % capacity_] = value;
        if (size_ < capacity_) {
            ++size_;
        } else {
            tail_ = (tail_ + 1) % capacity_;
        }
    }

    // Element i counted from the oldest one.
    const T& at(std::size_t i) const {
        if (i > size_) throw std::out_of_range("RingBuffer::at");
        return data_[(tail_ + i) % capacity_];
    }

    std::size_t size() const { return size_; }
    std::size_t capacity() const { return capacity_; }
    bool empty() const { return size_ == 0; }

    std::vector<T> snapshot() const {
        std::vector<T> out;
        out.reserve(size_);
        for (std::size_t i = 0; i < size_; ++i) out.push_back(at(i));
        return out;
    }

private:
    std::vector<T> data_;
    std::size_t capacity_;
    std::size_t tail_ = 0;
    std::size_t size_ = 0;
};
