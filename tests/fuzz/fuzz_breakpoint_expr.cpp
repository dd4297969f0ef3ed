// Expressions typed at the breakpoint prompt (name, name[i, j], slices with negative steps,
// chains, .shape, .dtype) against a frame of tensors of several ranks and dtypes. Every view
// an expression yields must lie inside its variable's memory: printing it touches each
// element it claims, which AddressSanitizer checks.
#include <probe/probe.hpp>

#include <cmath>
#include <string>
#include <vector>

#include <probe/core/format_tensor.hpp>
#include <probe/effects/breakpoint_expr.hpp>

#include "fuzz_input.hpp"

namespace {

struct fixture {
  std::vector<float> x = std::vector<float>(4 * 5 * 6, 1.5f);
  std::vector<int64_t> i = std::vector<int64_t>(10, 7);
  std::vector<double> s = std::vector<double>(1, 2.5);
  std::vector<uint8_t> e = std::vector<uint8_t>(1, 0);  // backs a view with no elements
  std::vector<int16_t> t = std::vector<int16_t>(3 * 4, 3);
  probe::detail::frame f;

  fixture() {
    namespace pd = probe::detail;
    pd::add_var(f, "x", probe::view(x.data(), {4, 5, 6}));
    pd::add_var(f, "i", probe::view(i.data(), {10}));
    pd::add_var(f, "s", probe::view(s.data(), probe::dims()));
    pd::add_var(f, "e", probe::view(e.data(), {0, 3}));
    // transposed: strides that are not C order
    pd::add_var(f, "t", probe::view(t.data(), {4, 3}, {1, 4}));
  }
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static fixture fx;
  const std::string text(probe_fuzz::as_text(data, size));
  probe::detail::expr_value v;
  std::string error;
  if (!probe::detail::eval_expr(fx.f, text, &v, &error)) {
    if (error.empty()) __builtin_trap();  // a refusal says why
    return 0;
  }
  if (v.is_text) return 0;
  std::string out;
  probe::detail::tensor_format all;
  all.threshold = INT64_MAX;
  probe::detail::format_tensor(out, v.view, all);
  return 0;
}
