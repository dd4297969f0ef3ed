// Debug prints and callbacks: capture at the call, the effect queue, its worker.
#include "compiled.hpp"

#include <probe/effects/print_impl.hpp>
#include <probe/effects/effect_queue_impl.hpp>
#include <probe/effects/effect_records_impl.hpp>
#include <probe/effects/capture_impl.hpp>
