// Breakpoints in the spirit of jax.debug.breakpoint. Light header.
//
//   PROBE_BREAKPOINT(probe::var("y", y), probe::var("step", step));
//   probe::breakpoint_if_nonfinite("z", z);     // only when z holds NaN or Inf
//
// What a breakpoint does comes from --probe_breakpoint: a pdb-like prompt over the frames
// (the breakpoint's variables, then each enclosing op with its recorded tensors), a SIGTRAP
// for an attached debugger, npy files of the variables, abort, or nothing. The default is
// the prompt when stdin is a terminal (or --probe_breakpoint_commands names a script), the
// npy files otherwise. docs/debug.md lists the prompt's commands.
#pragma once
#include "../core/gate.hpp"
#include "../core/tensor_view.hpp"

PROBE_BEGIN_NAMESPACE

// A named value shown at a breakpoint: a tensor, or a number (a 0-d tensor of its storage).
// It refers to the caller's memory, which the breakpoint reads while the caller waits.
struct var_ref {
  const char* name = nullptr;
  tensor_view view{};
};

template <class T>
var_ref var(const char* name, const T& value) noexcept {
#if defined(PROBE_DISABLE)
  (void)value;
  return var_ref{name, tensor_view{}};
#else
  return var_ref{name, to_view(value)};
#endif
}

// The exit status of a program ended with `q` at the prompt.
constexpr int breakpoint_quit_status = 3;

namespace detail {
#if !defined(PROBE_DISABLE)
PROBE_API void breakpoint_hit(const char* file, int line, const char* function, const var_ref* vars,
                               int nvars) noexcept;
PROBE_API void breakpoint_if_nonfinite_impl(const char* name, const tensor_view& v, const char* file, int line,
                                             const char* function) noexcept;
#endif
}  // namespace detail

// Breaks (as PROBE_BREAKPOINT would, at the caller's line) only when x holds NaN or +-Inf.
#if defined(PROBE_DISABLE)
template <class T>
void breakpoint_if_nonfinite(const char*, const T&, const char* = "", int = 0, const char* = "") noexcept {}
#else
template <class T>
void breakpoint_if_nonfinite(const char* name, const T& x, const char* file = __builtin_FILE(),
                             int line = __builtin_LINE(), const char* function = __builtin_FUNCTION()) noexcept {
  if (PROBE_UNLIKELY(detail::gate_on(detail::gate_breakpoint)))
    detail::breakpoint_if_nonfinite_impl(name, to_view(x), file, line, function);
}
#endif

PROBE_END_NAMESPACE

// PROBE_BREAKPOINT(probe::var("name", value), ...): stops here (see above). The arguments are
// evaluated only when breakpoints are on; with PROBE_DISABLE never, but they still count as
// used, so variables kept only for a breakpoint raise no warnings.
#if defined(PROBE_DISABLE)
#define PROBE_BREAKPOINT(...)                                                        \
  do {                                                                               \
    if (false) {                                                                     \
      const ::probe::var_ref probe_breakpoint_vars_[] = {::probe::var_ref{}, __VA_ARGS__}; \
      (void)probe_breakpoint_vars_;                                                  \
    }                                                                                \
  } while (0)
#else
#define PROBE_BREAKPOINT(...)                                                                     \
  do {                                                                                            \
    if (PROBE_UNLIKELY(::probe::detail::gate_on(::probe::detail::gate_breakpoint))) {             \
      const ::probe::var_ref probe_breakpoint_vars_[] = {::probe::var_ref{}, __VA_ARGS__};        \
      ::probe::detail::breakpoint_hit(__FILE__, __LINE__, __func__, probe_breakpoint_vars_ + 1,   \
                                      static_cast<int>(sizeof(probe_breakpoint_vars_) /           \
                                                       sizeof(probe_breakpoint_vars_[0])) - 1);   \
    }                                                                                             \
  } while (0)
#endif
