// --probe_break_on_abs_above=X: a breakpoint at the first op output, or the first probe::print
// argument, holding a value whose magnitude exceeds X (an overflow on its way, before it
// becomes the Inf or NaN that --probe_break_on_nonfinite catches). Internal header.
#pragma once
#include <string>

#include "../core/context.hpp"
#include "../core/format.hpp"
#include "../core/options.hpp"
#include "../core/stats.hpp"

PROBE_BEGIN_NAMESPACE
namespace detail {

struct abs_above_state {
  double limit = 0;  // read after `on` (release/acquire)
  int on = 0;        // atomic
  int fired = 0;     // atomic: stops once per set of options
};
PROBE_API abs_above_state& abs_above_ref() noexcept;

// "%.9g": 100, 1e+06, 0.001.
PROBE_API std::string short_number(double x);

// The largest magnitude in h: +inf when it holds an infinity; NaN when it holds no number.
PROBE_API double largest_magnitude(const health& h) noexcept;

// Checks one tensor; stops (once) when it exceeds the limit. `what` names it for the header,
// `op` (may be null) gives the enclosing frames' innermost op.
PROBE_API void abs_above_check(const tensor_view& v, const std::string& var, const std::string& what,
                                op_record* op) noexcept;

class abs_above_listener final : public op_listener {
 public:
  PROBE_API void on_tensor(op_record& r, const recorded_tensor& t, uint64_t&) noexcept override;
};
PROBE_API abs_above_listener& abs_above_listener_ref() noexcept;

// probe::print's arguments (installed as its check while the flag is on).
PROBE_API void abs_above_print_check(const char* fmt, size_t fmt_len, const format_arg* args, int nargs) noexcept;

// Wiring: parses the limit (a bad one: one message, the check stays off), re-arms the stop,
// adds the listener and the print check.
PROBE_API int abs_above_apply_options(const options& o, op_listener** list, int n, int cap) noexcept;

}  // namespace detail
PROBE_END_NAMESPACE
