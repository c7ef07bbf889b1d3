// interval_map<K, V>: a value for every key of an ordered key type, stored as the points where it changes.
#pragma once

#include <iterator>
#include <map>
#include <utility>

template <typename K, typename V>
class interval_map {
public:
    // Every key maps to `initial` until something is assigned.
    explicit interval_map(V const& initial) : m_valBegin(initial) {}

    // Assign `val` to every key in [keyBegin, keyEnd); an empty range (!(keyBegin < keyEnd)) changes nothing.
    void assign(K const& keyBegin, K const& keyEnd, V const& val) {
        if (!(keyBegin < keyEnd)) {
            return;
        }
        auto last = m_map.upper_bound(keyEnd);  // first change point after keyEnd
        V endValue = last == m_map.begin() ? m_valBegin : std::prev(last)->second;  // today's value at keyEnd
        auto first = m_map.lower_bound(keyBegin);  // first change point inside [keyBegin, ...)
        V const& before = first == m_map.begin() ? m_valBegin : std::prev(first)->second;
        bool startsSegment = !(before == val);
        bool endsSegment = !(endValue == val);
        auto hint = m_map.erase(first, last);
        if (endsSegment) {
            hint = m_map.emplace_hint(hint, keyEnd, std::move(endValue));
        }
        if (startsSegment) {
            m_map.emplace_hint(hint, keyBegin, val);
        }
    }

    // The value of `key`.
    V const& operator[](K const& key) const {
        auto it = m_map.upper_bound(key);
        if (it == m_map.begin()) {
            return m_valBegin;
        }
        return std::prev(it)->second;
    }

    // The change points: key -> value from that key up to the next change point.
    std::map<K, V> const& segments() const { return m_map; }

    // The value before the first change point.
    V const& initial() const { return m_valBegin; }

private:
    V m_valBegin;
    std::map<K, V> m_map;
};
