// Every module's definitions: included by probe.hpp in header-only mode and by the one TU
// that defines PROBE_IMPLEMENTATION when vendoring. The compiled library (src/) includes the
// same files, one module per source file.
#pragma once
// ground
#include "../util/log_impl.hpp"
#include "../util/float_text_impl.hpp"
#include "../util/text_impl.hpp"
#include "../util/fs_impl.hpp"
#include "../util/regex_impl.hpp"
// core
#include "../core/flags_impl.hpp"
#include "../core/context_impl.hpp"
#include "../core/format_impl.hpp"
#include "../core/format_tensor_impl.hpp"
#include "../core/stats_impl.hpp"
#include "../core/tensor_reader_impl.hpp"
#include "../core/tolerance_impl.hpp"
// formats
#include "../formats/npy_impl.hpp"
#include "../formats/json_read_impl.hpp"
#include "../formats/graph_impl.hpp"
#include "../formats/dot_impl.hpp"
#include "../formats/graph_html_impl.hpp"
#include "../formats/snapshot_impl.hpp"
// effects
#include "../effects/dump_impl.hpp"
#include "../effects/dump_async_impl.hpp"
#include "../effects/dump_dataflow_impl.hpp"
#include "../effects/dump_snapshot_impl.hpp"
#include "../effects/dump_names_impl.hpp"
#include "../effects/dump_records_impl.hpp"
#include "../effects/dump_tensor_impl.hpp"
#include "../effects/dump_run_file_impl.hpp"
#include "../effects/ir_dump_impl.hpp"
#include "../effects/print_impl.hpp"
#include "../effects/effect_queue_impl.hpp"
#include "../effects/effect_records_impl.hpp"
#include "../effects/capture_impl.hpp"
#include "../effects/breakpoint_impl.hpp"
#include "../effects/breakpoint_frames_impl.hpp"
#include "../effects/breakpoint_expr_impl.hpp"
#include "../effects/breakpoint_prompt_impl.hpp"
#include "../effects/breakpoint_when_impl.hpp"
#include "../effects/breakpoint_values_impl.hpp"
#include "../effects/timing_impl.hpp"
#include "../effects/timing_aggregate_impl.hpp"
#include "../effects/timing_buffer_impl.hpp"
#include "../effects/timing_clock_impl.hpp"
#include "../effects/replay_kernel_impl.hpp"
#include "../effects/replay_data_impl.hpp"
#include "../effects/replay_report_impl.hpp"
#include "../effects/replay_run_impl.hpp"
#if defined(PROBE_WITH_CUDA) || defined(PROBE_WITH_DEVICE_TIMING)
#include "../effects/device_timing_impl.hpp"  // device op timing (CUDA events, or a test's fake)
#endif
// top: the wiring, and the CUDA backends (only under PROBE_WITH_CUDA)
#include "wiring_impl.hpp"
#include "../backends/cuda_access.hpp"
#include "../backends/cuda_timing.hpp"
#include "../backends/cuda_effects.hpp"
