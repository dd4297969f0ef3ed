// probe compiled out, for translation units older than C++17 (probe.hpp includes this for
// them when PROBE_DISABLE is defined). The marks an engine writes compile to nothing, as under
// PROBE_DISABLE in C++17, with two exceptions that belong to the program: probe::timer still
// measures, and probe::metric still prints its line. C++11 and later; nothing else of probe
// exists here (use <probe/probe.h> to call the compiled library from such a TU).
#pragma once
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include <initializer_list>
#include <string>

#include "util/metric_line.h"

namespace probe {

enum class dtype : uint8_t {
  invalid = 0, boolean, int8, int16, int32, int64, uint8, uint16, uint32, uint64,
  float16, bfloat16, float32, float64, complex64, complex128,
};

struct tensor_view {
  bool valid() const noexcept { return false; }
  tensor_view on_cuda(int = 0, void* = nullptr) const noexcept { return *this; }
};
template <class... A>
tensor_view view(const A&...) noexcept {
  return tensor_view{};
}
template <class T>
tensor_view view(const T*, std::initializer_list<int64_t>) noexcept {
  return tensor_view{};
}
template <class T>
tensor_view view(const T*, std::initializer_list<int64_t>, std::initializer_list<int64_t>) noexcept {
  return tensor_view{};
}
template <class... A>
tensor_view batch_view(const A&...) noexcept {
  return tensor_view{};
}

inline void init(int&, char**) noexcept {}
inline void set_flags(const char*) noexcept {}
inline bool reference_mode() noexcept { return false; }
inline void flush() noexcept {}
inline void set_step(int64_t) noexcept {}
inline int64_t next_step() noexcept { return 0; }
inline int64_t current_step() noexcept { return 0; }

class op {
 public:
  explicit op(const char*, const char* = "") noexcept {}
  op(const char*, const char*, int64_t) noexcept {}
  explicit op(const std::string&, const char* = "") noexcept {}
  op(const op&) = delete;
  op& operator=(const op&) = delete;
  template <class T>
  op& input(const char*, const T&) noexcept { return *this; }
  template <class T>
  op& output(const char*, const T&) noexcept { return *this; }
  template <class T>
  op& inout(const char*, const T&) noexcept { return *this; }
  template <class T>
  op& output_at_end(const char*, const T&) noexcept { return *this; }
  op& link(const char*, const char*) noexcept { return *this; }
  template <class T>
  op& attr(const char*, const T&) noexcept { return *this; }
  void end() noexcept {}
  bool active() const noexcept { return false; }
  bool records_tensors() const noexcept { return false; }
  uint64_t sequence() const noexcept { return 0; }
};

class op_context {
 public:
  bool empty() const noexcept { return true; }
};
inline op_context current_op_context() noexcept { return op_context(); }
class adopt_op_context {
 public:
  explicit adopt_op_context(const op_context&) noexcept {}
};

// probe::wrap calls fn with the values when it accepts them, else with none, as in C++17.
template <class T>
struct without_ref {
  typedef T type;
};
template <class T>
struct without_ref<T&> {
  typedef T type;
};
template <class T>
struct io_arg {
  const char* slot;
  T& value;
};
template <class T>
io_arg<typename without_ref<T>::type> in(const char* slot, T&& value) noexcept {
  return {slot, value};
}
template <class T>
io_arg<typename without_ref<T>::type> out(const char* slot, T&& value) noexcept {
  return {slot, value};
}
struct wrap_without_values {};
struct wrap_with_values : wrap_without_values {};
template <class F, class... A>
auto wrap_call(wrap_with_values, F& fn, const A&... a) -> decltype(fn(a.value...)) {
  return fn(a.value...);
}
template <class F, class... A>
auto wrap_call(wrap_without_values, F& fn, const A&...) -> decltype(fn()) {
  return fn();
}
template <class F, class... A>
auto wrap(const char*, F&& fn, const A&... a) -> decltype(wrap_call(wrap_with_values(), fn, a...)) {
  return wrap_call(wrap_with_values(), fn, a...);
}

struct ordered_t {};
constexpr ordered_t ordered{};
template <class... A>
void print(const A&...) noexcept {}
template <class... A>
void callback(const A&...) noexcept {}
inline void effects_barrier() noexcept {}
template <class... A>
std::string format(const A&...) {
  return std::string();
}

struct var_ref {};
template <class T>
var_ref var(const char*, const T&) noexcept {
  return var_ref{};
}
template <class T>
void breakpoint_if_nonfinite(const char*, const T&) noexcept {}
constexpr int breakpoint_quit_status = 3;

inline void metric(const char* name, double value) noexcept { probe_metric_line(name, value); }
inline void metric(const std::string& name, double value) noexcept { probe_metric_line(name.c_str(), value); }
inline void write_timing_summary(void*) noexcept {}

// A stopwatch: measures in every build (programs compute their own rates from it).
class timer {
 public:
  timer() noexcept { start(); }
  explicit timer(const char*) noexcept { start(); }
  void start() noexcept {
    begin_ = now();
    running_ = true;
  }
  void stop() noexcept {
    if (running_) total_ += now() - begin_;
    running_ = false;
  }
  void reset() noexcept {
    running_ = false;
    total_ = 0;
  }
  bool running() const noexcept { return running_; }
  int64_t elapsed_ns() const noexcept { return total_ + (running_ ? now() - begin_ : 0); }
  double elapsed() const noexcept { return static_cast<double>(elapsed_ns()) * 1e-9; }

 private:
  static int64_t now() noexcept {
    timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return static_cast<int64_t>(ts.tv_sec) * 1000000000 + ts.tv_nsec;
  }
  int64_t begin_ = 0, total_ = 0;
  bool running_ = false;
};

using log_sink = void (*)(const char* message, void* user);
inline void set_log_sink(log_sink, void* = nullptr) noexcept {}

}  // namespace probe

#define PROBE_SCOPE(name) static_assert(sizeof("" name "") > 0, "PROBE_SCOPE takes a literal")
#define PROBE_BREAKPOINT(...) ((void)0)
