// probe.h's debug effects (c/debug.h) over the C++ ones: printf-formatted prints, tensor text,
// callbacks with captured tensors, breakpoints with variables. Part of c_api_impl.hpp.
#pragma once
#include <stdarg.h>
#include <stdio.h>

#include <new>
#include <string>
#include <vector>

#include "../core/format_tensor.hpp"
#include "../core/stats.hpp"
#include "../effects/breakpoint.hpp"
#include "../effects/print.hpp"
#include "../probe.h"

PROBE_BEGIN_NAMESPACE
namespace detail {

// The text is formatted on the caller's thread (printf's arguments do not outlive the call)
// and queued as one string: the caller pays for vsnprintf, the write happens off-thread.
inline void c_vprint(bool ordered, const char* format, va_list args) noexcept {
  if (!format) return;
  char small[512];
  va_list again;
  va_copy(again, args);
  const int n = vsnprintf(small, sizeof small, format, args);
  if (n < 0) {
    va_end(again);
    log("probe_print(\"%s\"): the format could not be applied; nothing printed", format);
    return;
  }
  try {
    std::string big;
    const char* text = small;
    if (static_cast<size_t>(n) >= sizeof small) {
      big.resize(static_cast<size_t>(n) + 1);
      vsnprintf(&big[0], big.size(), format, again);
      big.resize(static_cast<size_t>(n));
      text = big.c_str();
    }
    const format_arg args_[2] = {make_format_arg(text), {}};
    print_submit(ordered, "{}", 2, args_, 1);
  } catch (...) {
  }
  va_end(again);
}

// A C callback and the copies of its tensors, run once on probe's worker thread.
class c_callback final : public callback_task {
 public:
  c_callback(probe_callback_fn fn, void* user) : fn_(fn), user_(user) {}
  bool capture(effect_record* r, const probe_tensor* tensors, int n) {
    views_.reserve(static_cast<size_t>(n));
    for (int i = 0; i < n; ++i) views_.push_back(callback_capture_tensor(r, c_view(tensors[i])));
    out_.resize(views_.size());
    for (size_t i = 0; i < views_.size(); ++i) {
      const tensor_view& v = views_[i];
      out_[i].data = v.data;
      out_[i].batch = nullptr;
      out_[i].shape = v.ndim > 0 ? v.shape : nullptr;
      out_[i].strides = nullptr;  // captured copies are contiguous
      out_[i].type = static_cast<probe_dtype>(v.type);
      out_[i].ndim = v.ndim;
    }
    return true;
  }
  void run() override { fn_(user_, out_.empty() ? nullptr : out_.data(), static_cast<int>(out_.size())); }

 private:
  probe_callback_fn fn_;
  void* user_;
  std::vector<tensor_view> views_;  // out_ points into these
  std::vector<probe_tensor> out_;
};

inline void c_callback_submit(bool ordered, probe_callback_fn fn, void* user, const probe_tensor* tensors,
                              int n) noexcept {
  if (!fn || !gate_on(gate_callback)) return;
  effect_record* r = callback_begin(ordered);
  if (!r) return;
  c_callback* task = nullptr;
  try {
    task = new c_callback(fn, user);
    task->capture(r, tensors, tensors && n > 0 ? n : 0);
  } catch (...) {
    delete task;
    task = nullptr;
  }
  callback_commit(r, task);
}

}  // namespace detail
PROBE_END_NAMESPACE

extern "C" {

void probe_vprint(int ordered, const char* format, va_list args) PROBE_C_NOEXCEPT {
  if (probe::detail::gate_on(probe::detail::gate_print)) probe::detail::c_vprint(ordered != 0, format, args);
}
void probe_print(const char* format, ...) PROBE_C_NOEXCEPT {
  if (!probe::detail::gate_on(probe::detail::gate_print)) return;
  va_list args;
  va_start(args, format);
  probe::detail::c_vprint(false, format, args);
  va_end(args);
}
void probe_print_ordered(const char* format, ...) PROBE_C_NOEXCEPT {
  if (!probe::detail::gate_on(probe::detail::gate_print)) return;
  va_list args;
  va_start(args, format);
  probe::detail::c_vprint(true, format, args);
  va_end(args);
}

const char* probe_tensor_text(probe_tensor tensor) PROBE_C_NOEXCEPT {
  using namespace probe::detail;
  if (!gate_on(gate_print)) return "";
  // A ring, so that one probe_print may show several tensors.
  static thread_local std::string ring[8];
  static thread_local unsigned next = 0;
  std::string& out = ring[next++ % 8];
  try {
    out.clear();
    format_tensor(out, c_view(tensor), tensor_format{});
    return out.c_str();
  } catch (...) {
    return "";
  }
}

void probe_print_tensor(const char* label, const void* data, probe_dtype type, int ndim, const int64_t* shape) PROBE_C_NOEXCEPT {
  probe::print("{} = {}", label ? label : "", probe::detail::c_view(data, type, ndim, shape));
}

void probe_callback(probe_callback_fn fn, void* user, const probe_tensor* tensors, int ntensors) PROBE_C_NOEXCEPT {
  probe::detail::c_callback_submit(false, fn, user, tensors, ntensors);
}
void probe_callback_ordered(probe_callback_fn fn, void* user, const probe_tensor* tensors, int ntensors) PROBE_C_NOEXCEPT {
  probe::detail::c_callback_submit(true, fn, user, tensors, ntensors);
}
void probe_effects_barrier(void) PROBE_C_NOEXCEPT { probe::effects_barrier(); }

void probe_breakpoint_at(const char* file, int line, const char* function, const probe_var* vars, int nvars) PROBE_C_NOEXCEPT {
  using namespace probe::detail;
  if (!gate_on(gate_breakpoint)) return;
  if (!vars || nvars < 0) nvars = 0;
  probe::var_ref small[16];
  probe::var_ref* refs = small;
  std::vector<probe::var_ref> big;
  if (nvars > 16) {
    try {
      big.resize(static_cast<size_t>(nvars));
    } catch (...) {
      return;
    }
    refs = big.data();
  }
  for (int i = 0; i < nvars; ++i) refs[i] = probe::var_ref{vars[i].name ? vars[i].name : "", c_view(vars[i].value)};
  breakpoint_hit(file ? file : "", line, function ? function : "", refs, nvars);
}

int probe_break_if_nonfinite_at(const char* name, probe_tensor tensor, const char* file, int line,
                                const char* function) PROBE_C_NOEXCEPT {
  using namespace probe::detail;
  if (!gate_on(gate_breakpoint)) return 0;
  const probe::tensor_view v = c_view(tensor);
  const probe::health h = probe::compute_health(v);
  if (!h.valid || h.all_finite()) return 0;
  breakpoint_if_nonfinite_impl(name ? name : "", v, file ? file : "", line, function ? function : "");
  return 1;
}

int(probe_break_if_nonfinite)(const char* name, const void* data, probe_dtype type, int ndim, const int64_t* shape) PROBE_C_NOEXCEPT {
  return probe_break_if_nonfinite_at(name, probe_tensor_of(data, type, ndim, shape), "", 0, "");
}

}  // extern "C"
