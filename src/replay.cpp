// Replay: the kernel registry, snapshot inputs (recorded or fake), running and reporting.
#include "compiled.hpp"

#include <probe/effects/replay_kernel_impl.hpp>
#include <probe/effects/replay_data_impl.hpp>
#include <probe/effects/replay_report_impl.hpp>
#include <probe/effects/replay_run_impl.hpp>
