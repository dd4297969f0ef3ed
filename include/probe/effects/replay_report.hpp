// What replaying snapshots found, and how it is told: one row per snapshot (its outputs
// compared with the recorded ones, or its error), as the table and answer replay prints, and
// as one JSON line (how a child process running a snapshot hands its row back). Internal header.
#pragma once
#include <stdint.h>

#include <string>
#include <vector>

#include "../core/tolerance.hpp"
#include "../util/float_text.hpp"

PROBE_BEGIN_NAMESPACE
namespace detail {

struct replay_output_row {
  std::string slot;
  std::string shape;    // "float32[8,64]"
  std::string result;   // ok, MISMATCH, finite, NONFINITE, not recorded
  bool compared = false;
  closeness c;          // when compared
  std::string worst_at;  // "[3,17]": the worst failing element
  int64_t nan = 0, inf = 0;  // fake data: non-finite values in the output
  double min = 0, max = 0, mean = 0;  // fake data: of its finite values (the same seed, the same figures)
  std::string written;  // the .npy a mismatching output was written to
};

enum class replay_outcome : uint8_t { ok, mismatch, error };

struct replay_row {
  std::string dir, key, type, status;  // the snapshot: folder, op#occurrence, op type, status
  std::string kernel;                   // the name the kernel was found under
  replay_outcome outcome = replay_outcome::ok;
  std::string error;  // one line, when outcome is error
  bool isolated = false;  // ran in a child process
  std::vector<replay_output_row> outputs;
  std::vector<int64_t> times_ns;  // --probe_replay_iterations: each timed run of the kernel
  std::vector<std::string> notes;  // said under its row ("input 'g': its prior state is unknown ...")
};

struct replay_report {
  std::vector<replay_row> rows;
  std::vector<replay_row> no_kernel;  // skipped: no kernel registered for the op or its type
  bool fake_data = false;
  // 0 every output within tolerance (fake data: finite), 1 a mismatch, 2 an error.
  int exit_code() const noexcept;
};

PROBE_API std::string replay_row_json(const replay_row& r);
PROBE_API bool replay_row_from_json(const std::string& text, replay_row* r);

// The table (one line per output, errors in words), the timings, and the answer; the same
// in parts for rows shown as they finish: the header, a row's first columns (op, type,
// recorded status) before it runs, the rest when it has, and the end.
struct replay_columns {
  size_t key = 6, type = 4;
  bool fake_data = false;
};
PROBE_API replay_columns replay_columns_for(const std::vector<replay_row>& rows, bool fake_data);
PROBE_API std::string replay_table_head(const replay_columns& c);
PROBE_API std::string replay_row_head(const replay_row& row, const replay_columns& c);
PROBE_API std::string replay_row_rest(const replay_row& row, const replay_columns& c);
PROBE_API std::string replay_table_end(const replay_report& r);
PROBE_API std::string replay_text(const replay_report& r);

// "1.25 us", "3.4 ms"
PROBE_API std::string duration_text(int64_t ns);

// The shortest text that reads back as v ("1e-05", "0.25").
PROBE_API std::string shortest_text(double v);

}  // namespace detail
PROBE_END_NAMESPACE
