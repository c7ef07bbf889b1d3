// bus/event_bus.hpp — a typed, single-threaded event bus for a closed set of event types (C++17).
//
// API:
//   EventBus<E1, E2, ...>               a bus for the event types E1, E2, ... (distinct types)
//   bus.subscribe(f) -> Subscription    f: a lambda (also `mutable` ones), function object, function or
//                                       function pointer taking one `const E&` (or `E`) for an E of the set;
//                                       the event type is deduced from f
//   bus.subscribe<E>(f)                 explicit event type, e.g. for generic lambdas
//   bus.unsubscribe(sub) -> bool        removes that handler; false if it was already removed
//   bus.publish(e) -> std::size_t       calls the handlers of e's type in subscription order and returns
//                                       how many ran; handlers may subscribe/unsubscribe while running
//                                       (changes take effect from the next publish)
//                                       handlers keep their state between calls: a `mutable` lambda
//                                       sees its own earlier changes
//   bus.publish_any(v) -> std::size_t   v: EventBus::any_event (std::variant<E1, E2, ...>)
//   bus.handler_count<E>()              live handlers for E
//   EventBus<...>::handles<E>           constexpr bool: E is one of the bus's event types
//   Subscribing to or publishing a type outside the set fails to compile with a static_assert.
//
//   RecordingBus<E1, E2, ...>           an EventBus that also records, for every publish/publish_any, the
//                                       position of the event's type in E1, E2, ... (history()) and counts
//                                       events that no handler heard (unheard())
//   overloaded{f1, f2, ...}             builds a visitor from several lambdas (for std::visit)
#pragma once

#include <cstddef>
#include <functional>
#include <memory>
#include <tuple>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

namespace bus {

template <typename... Fs>
struct overloaded : Fs... {
    using Fs::operator()...;
};
template <typename... Fs>
overloaded(Fs...) -> overloaded<Fs...>;

namespace detail {

// Position of T in Ts...
template <typename T, typename... Ts>
struct index_of;

template <typename T, typename... Ts>
struct index_of<T, T, Ts...> : std::integral_constant<std::size_t, 0> {};

template <typename T, typename U, typename... Ts>
struct index_of<T, U, Ts...> : std::integral_constant<std::size_t, 1 + index_of<T, Ts...>::value> {};

// The (decayed) parameter type of a one-argument callable; function objects go through operator().
template <typename F>
struct callable_arg : callable_arg<decltype(&F::operator())> {};

template <typename C, typename R, typename A>
struct callable_arg<R (C::*)(A) const> {
    using type = std::decay_t<A>;
};

template <typename C, typename R, typename A>
struct callable_arg<R (C::*)(A)> {
    using type = std::decay_t<A>;
};

template <typename R, typename A>
struct callable_arg<R (*)(A)> {
    using type = std::decay_t<A>;
};

}  // namespace detail

struct Subscription {
    std::size_t type_index;
    std::size_t id;
};

template <typename... Events>
class EventBus {
public:
    using any_event = std::variant<Events...>;

    template <typename E>
    static constexpr bool handles = (std::is_same_v<E, Events> || ...);

    template <typename E, typename F>
    Subscription subscribe(F&& f) {
        static_assert(handles<E>, "this bus does not carry that event type");
        auto& slots = std::get<index<E>>(handlers_);
        slots.push_back(Slot<E>{next_id_, std::make_shared<std::function<void(const E&)>>(std::forward<F>(f))});
        return Subscription{index<E>, next_id_++};
    }

    template <typename F>
    Subscription subscribe(F&& f) {
        using E = typename detail::callable_arg<std::decay_t<F>>::type;
        return subscribe<E>(std::forward<F>(f));
    }

    bool unsubscribe(const Subscription& sub) {
        return remove_from(sub, std::index_sequence_for<Events...>{});
    }

    template <typename E>
    std::size_t publish(const E& event) {
        static_assert(handles<E>, "this bus does not carry that event type");
        // a copy of the slot list, so handlers may (un)subscribe; the handlers themselves are shared
        const auto snapshot = std::get<index<E>>(handlers_);
        for (const auto& slot : snapshot) (*slot.fn)(event);
        return snapshot.size();
    }

    std::size_t publish_any(const any_event& event) {
        return std::visit([this](const auto& e) { return this->publish(e); }, event);
    }

    template <typename E>
    std::size_t handler_count() const {
        return std::get<index<E>>(handlers_).size();
    }

protected:
    template <typename E>
    static constexpr std::size_t index = detail::index_of<E, Events...>::value;

private:
    template <typename E>
    struct Slot {
        std::size_t id;
        std::shared_ptr<std::function<void(const E&)>> fn;
    };

    template <typename E>
    bool remove_slot(std::size_t id) {
        auto& slots = std::get<index<E>>(handlers_);
        typename std::vector<Slot<E>>::iterator it = slots.begin();
        for (; it != slots.end(); ++it) {
            if (it->id == id) {
                slots.erase(it);
                return true;
            }
        }
        return false;
    }

    template <std::size_t... Is>
    bool remove_from(const Subscription& sub, std::index_sequence<Is...>) {
        bool removed = false;
        ((sub.type_index == Is ? (removed = remove_slot<Events>(sub.id)) : false), ...);
        return removed;
    }

    std::tuple<std::vector<Slot<Events>>...> handlers_;
    std::size_t next_id_ = 1;
};

template <typename... Events>
class RecordingBus : public EventBus<Events...> {
public:
    template <typename E>
    std::size_t publish(const E& event) {
        history_.push_back(EventBus<Events...>::template index<E>);
        if (this->template handler_count<E>() == 0) ++unheard_;
        return EventBus<Events...>::publish(event);
    }

    std::size_t publish_any(const typename EventBus<Events...>::any_event& event) {
        return std::visit([this](const auto& e) { return this->publish(e); }, event);
    }

    const std::vector<std::size_t>& history() const { return history_; }
    std::size_t unheard() const { return unheard_; }

private:
    std::vector<std::size_t> history_;
    std::size_t unheard_ = 0;
};

}  // namespace bus
