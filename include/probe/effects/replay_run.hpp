// Replay mode (--probe_replay): every selected snapshot re-runs its op alone with the
// registered kernel, on its recorded inputs (or fake ones), and its outputs are compared
// with the recorded ones as probe compare would. Snapshots of ops that crashed or threw
// (status running or exception) run in a child process, so a crash is reported, not
// suffered. The wiring calls replay_main at probe::init or the first mark, then exits with
// its code. Internal header.
#pragma once
#include <stdint.h>

#include <string>
#include <vector>

#include "../core/options.hpp"
#include "../core/tolerance.hpp"
#include "../formats/snapshot.hpp"
#include "replay_report.hpp"

PROBE_BEGIN_NAMESPACE
namespace detail {

struct replay_settings {
  std::string paths;  // snapshot paths, one per line
  std::string op_re;  // partial match on "op#occurrence"
  bool fake_data = false;
  uint64_t seed = 0;
  int64_t iterations = 0;
  tolerance tol{-1, -1};  // negative: the dtype default
  bool write_mismatches = false;
  bool isolate = false;
  bool reference = false;  // --probe_reference: the kernel's reference form
  bool require_kernels = false;  // an op without a kernel is an error row, not skipped
};

// Told about each snapshot as it is replayed, so that rows can be shown as they finish (a
// crash then leaves every finished row, and the op in flight, on the screen).
struct replay_listener {
  virtual ~replay_listener() = default;
  // Before the first: the rows to come (op#occurrence and type of each), for column widths.
  virtual void planned(const std::vector<replay_row>&) noexcept {}
  virtual void starting(const replay_row&) noexcept {}
  virtual void finished(const replay_row&) noexcept {}
};

// The settings the flags ask for; false with *error for a malformed tolerance.
PROBE_API bool replay_settings_from(const options& o, replay_settings* s, std::string* error);

// Replays one snapshot in this process. Never throws; a crash in the kernel is this
// process's crash (replay_isolated survives it).
PROBE_API replay_row replay_one(const snapshot::info& snap, const replay_settings& s) noexcept;

// Replays one snapshot in a child process; its crash (signal) or exit becomes an error row.
PROBE_API replay_row replay_isolated(const snapshot::info& snap, const replay_settings& s) noexcept;

// Finds, filters and replays every snapshot the settings name. *error: why none could be
// (no snapshot found, a bad filter); rows for those that could.
PROBE_API replay_report replay_all(const replay_settings& s, std::string* error, replay_listener* l = nullptr) noexcept;

// Replay mode: replays, prints the table and answer on stdout (errors one line each through
// the log), and returns the exit code: 0 within tolerance, 1 mismatch, 2 error.
PROBE_API int replay_main(const options& o) noexcept;

}  // namespace detail
PROBE_END_NAMESPACE
