// capture: definitions (see capture.hpp).
#pragma once
#include "../util/immortal.hpp"
#include "capture.hpp"

PROBE_BEGIN_NAMESPACE
namespace detail {

PROBE_API capture_executor& host_executor() noexcept {
  static immortal<host_capture_executor> e;  // never destroyed
  return e.get();
}

}  // namespace detail
PROBE_END_NAMESPACE
