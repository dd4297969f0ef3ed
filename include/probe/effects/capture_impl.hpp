// capture: definitions (see capture.hpp).
#pragma once
#include "capture.hpp"

PROBE_BEGIN_NAMESPACE
namespace detail {

PROBE_API capture_executor& host_executor() noexcept {
  static host_capture_executor* e = new host_capture_executor();  // never destroyed
  return *e;
}

}  // namespace detail
PROBE_END_NAMESPACE
