// Connects the parsed options to the effects: which listeners observe ops, which sinks are
// open. The only place that knows every effect, so core never includes effects.
// Implementation-only header.
#pragma once
#include "../core/context_impl.hpp"
#include "../core/options.hpp"

PROBE_BEGIN_NAMESPACE
namespace detail {

PROBE_FUNC void apply_options(const options& o) noexcept {
  static op_listener* list[8];
  int n = 0;
  (void)list;
  set_op_listeners(list, n, o.dump);
}

}  // namespace detail
PROBE_END_NAMESPACE
