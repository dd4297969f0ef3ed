// breakpoint_prompt: definitions (see breakpoint_prompt.hpp).
#pragma once
#include "breakpoint_prompt.hpp"

PROBE_BEGIN_NAMESPACE
namespace detail {

PROBE_API prompt_action run_prompt(stop_info& stop, prompt_io& io) noexcept {
  try {
    if (stop.frames.empty()) return prompt_action::resume;
    bp_prompt::session s(stop, io);
    return s.run();
  } catch (...) {
    return prompt_action::resume;
  }
}

}  // namespace detail
PROBE_END_NAMESPACE
