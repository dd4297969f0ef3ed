// breakpoint_values: definitions (see breakpoint_values.hpp).
#pragma once
#include <stdlib.h>

#include "../util/immortal.hpp"
#include "breakpoint_stop.hpp"
#include "breakpoint_values.hpp"
#include "print_sink.hpp"

PROBE_BEGIN_NAMESPACE
namespace detail {

PROBE_API abs_above_state& abs_above_ref() noexcept {
  static immortal<abs_above_state> s;  // never destroyed: ops may run during exit
  return s.get();
}

PROBE_API std::string short_number(double x) {
  char b[40];
  snprintf(b, sizeof b, "%.9g", x);
  return b;
}

PROBE_API double largest_magnitude(const health& h) noexcept {
  if (h.pos_inf || h.neg_inf) return __builtin_inf();
  if (h.finite == 0) return __builtin_nan("");
  const double a = h.min < 0 ? -h.min : h.min, b = h.max < 0 ? -h.max : h.max;
  return a > b ? a : b;
}

PROBE_API void abs_above_check(const tensor_view& v, const std::string& var, const std::string& what,
                                op_record* op) noexcept {
  abs_above_state& st = abs_above_ref();
  if (!__atomic_load_n(&st.on, __ATOMIC_ACQUIRE) || __atomic_load_n(&st.fired, __ATOMIC_ACQUIRE)) return;
  if (v.type == dtype::boolean || !v.valid()) return;
  try {
    health h;
    std::string err;
    if (!nonfinite_health(v, &h, &err)) {
      static int said = 0;
      log_once(&said, "--probe_break_on_abs_above cannot check %s: %s", what.c_str(), err.c_str());
      return;
    }
    const double m = largest_magnitude(h);
    if (!(m > st.limit) || __atomic_exchange_n(&st.fired, 1, __ATOMIC_ACQ_REL)) return;
    stop_info s;
    set_stop_thread(s);
    if (op) s.step = op->step;
    frame f;
    f.kind = frame_kind::value;
    f.name = what;
    add_var(f, var, v);
    s.frames.push_back(static_cast<frame&&>(f));
    add_enclosing_frames(s, op ? op : current_op(), current_scope());
    s.reason = "|value| above " + short_number(st.limit) + " in " + what + ": largest magnitude " + short_number(m) +
               ", min " + short_number(h.min) + ", max " + short_number(h.max) +
               " (the first such value; later ones are not reported)";
    breakpoint_stop_now(s);
  } catch (...) {
  }
}

PROBE_API void abs_above_listener::on_tensor(op_record& r, const recorded_tensor& t, uint64_t&) noexcept {
  if (t.which != io::out) return;
  try {
    abs_above_check(t.view, t.slot,
                    "output '" + printable(t.slot) + "' of op " + printable(r.name) +
                        (r.type.empty() ? std::string() : " (" + printable(r.type) + ")") + " seq " +
                        std::to_string(r.seq) + ", step " + std::to_string(r.step),
                    &r);
  } catch (...) {
  }
}

PROBE_API abs_above_listener& abs_above_listener_ref() noexcept {
  static immortal<abs_above_listener> l;
  return l.get();
}

PROBE_API void abs_above_print_check(const char* fmt, size_t fmt_len, const format_arg* args, int nargs) noexcept {
  try {
    for (int i = 0; i < nargs; ++i) {
      tensor_view v;
      const format_arg& a = args[i];
      if (a.kind == arg_kind::tensor) v = a.view;
      else if (a.kind == arg_kind::float64) v = ::probe::view(a.d);
      else if (a.kind == arg_kind::float32) v = ::probe::view(a.f);
      else if (a.kind == arg_kind::signed_int) v = ::probe::view(a.i);
      else continue;
      abs_above_check(v, "arg" + std::to_string(i),
                      "argument " + std::to_string(i) + " of probe::print(\"" +
                          printable(std::string(fmt ? fmt : "", fmt ? fmt_len : 0)) + "\")",
                      nullptr);
    }
  } catch (...) {
  }
}

PROBE_API int abs_above_apply_options(const options& o, op_listener** list, int n, int cap) noexcept {
  abs_above_state& st = abs_above_ref();
  __atomic_store_n(&st.on, 0, __ATOMIC_RELEASE);
  __atomic_store_n(&g_print_check, static_cast<print_check_fn>(nullptr), __ATOMIC_RELEASE);
  __atomic_store_n(&st.fired, 0, __ATOMIC_RELEASE);
  if (!o.break_on_abs_above[0] || o.breakpoint_as == breakpoint_mode::off) return n;
  char* end = nullptr;
  const double x = strtod(o.break_on_abs_above, &end);
  if (end == o.break_on_abs_above || *end != '\0' || !(x >= 0) || x != x) {
    log("--probe_break_on_abs_above=%s: expected a number >= 0; the check is off", o.break_on_abs_above);
    stop_if_strict(o);
    return n;
  }
  st.limit = x;
  __atomic_store_n(&st.on, 1, __ATOMIC_RELEASE);
  __atomic_store_n(&g_print_check, &abs_above_print_check, __ATOMIC_RELEASE);
  if (n < cap) list[n++] = &abs_above_listener_ref();
  return n;
}

}  // namespace detail
PROBE_END_NAMESPACE
