// The dump effect: tensors, text io-dumps, snapshots, manifest, graphs.
#include "compiled.hpp"

#include <probe/effects/dump_impl.hpp>
#include <probe/effects/dump_async_impl.hpp>
#include <probe/effects/dump_dataflow_impl.hpp>
#include <probe/effects/dump_snapshot_impl.hpp>
#include <probe/effects/dump_names_impl.hpp>
#include <probe/effects/dump_records_impl.hpp>
#include <probe/effects/dump_tensor_impl.hpp>
#include <probe/effects/dump_run_file_impl.hpp>
