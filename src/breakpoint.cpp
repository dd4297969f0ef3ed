// Breakpoints: the stop, frames, expressions, the prompt.
#include "compiled.hpp"

#include <probe/effects/breakpoint_impl.hpp>
#include <probe/effects/breakpoint_frames_impl.hpp>
#include <probe/effects/breakpoint_expr_impl.hpp>
#include <probe/effects/breakpoint_prompt_impl.hpp>
#include <probe/effects/breakpoint_when_impl.hpp>
#include <probe/effects/breakpoint_values_impl.hpp>
