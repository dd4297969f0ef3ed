// Objects built on first use and never destroyed, in static storage. Internal header.
//
// The runtime's singletons serve exit handlers and threads that outlive main, so they are
// never destroyed; building one in static storage allocates nothing, where a `new` at first
// use would end the program (std::terminate from noexcept code) when memory is short.
#pragma once
#include <new>

#include "config.hpp"

PROBE_BEGIN_NAMESPACE
namespace detail {

// Declare as a function-local static: `static immortal<T> s; return s.get();`. T's default
// constructor must not throw (the runtime's states hold mutexes, numbers and empty containers).
template <class T>
class immortal {
 public:
  immortal() noexcept { ::new (static_cast<void*>(storage_)) T(); }
  immortal(const immortal&) = delete;
  immortal& operator=(const immortal&) = delete;
  // No destructor: the object outlives every static destructor and exit handler.
  T& get() noexcept { return *std::launder(reinterpret_cast<T*>(storage_)); }

 private:
  alignas(T) unsigned char storage_[sizeof(T)];
};

}  // namespace detail
PROBE_END_NAMESPACE
