// What compare keeps of each side of a rank's run folder to answer across ranks
// (compare_ranks.hpp): the MPI rank and world size, whether the run ended, probe::mpi's message
// records, and when each op's outputs were recorded (the clock that orders ops across ranks).
// Standalone header.
#pragma once
#include <stdint.h>

#include <cstdlib>
#include <cstring>
#include <string>
#include <unordered_map>
#include <vector>

#include "dump_manifest.hpp"

PROBE_BEGIN_NAMESPACE
namespace analysis {

struct rank_side {
  bool present = false;
  int rank = -1, world = 0;
  bool has_end = false;
  std::vector<dump_message> messages;
  std::unordered_map<std::string, double> op_time;  // op#occurrence -> first output's wall time
  std::string last_op;  // the op of the last tensor record (where a killed run stopped)
  int64_t last_step = 0;
  uint64_t last_seq = 0;
  double last_time = 0;  // the latest wall time of its records
};

struct rank_run {
  rank_side a, b;
};

// The rank a run folder holds: its run record's, else its name's (rank_0003).
inline int rank_of_run(const dump_run& r) {
  if (r.rank >= 0) return r.rank;
  if (r.name.compare(0, 5, "rank_") == 0 && r.name.size() > 5) {
    char* end = nullptr;
    const long v = std::strtol(r.name.c_str() + 5, &end, 10);
    if (end && *end == '\0' && v >= 0 && v < (1L << 30)) return static_cast<int>(v);
  }
  return -1;
}

inline rank_side rank_side_of(const dump_run& r) {
  rank_side s;
  s.present = true;
  s.rank = rank_of_run(r);
  s.world = r.world;
  s.has_end = r.has_end;
  s.messages = r.messages;
  for (const dump_tensor& t : r.tensors) {
    if (t.seq >= s.last_seq) {
      s.last_seq = t.seq;
      s.last_op = t.op_key();
      s.last_step = t.step;
    }
    if (t.wall_time > s.last_time) s.last_time = t.wall_time;
    if (t.is_input || t.wall_time <= 0) continue;
    auto it = s.op_time.emplace(t.op_key(), t.wall_time).first;
    if (t.wall_time < it->second) it->second = t.wall_time;
  }
  for (const dump_message& m : r.messages)
    if (m.wall_time > s.last_time) s.last_time = m.wall_time;
  return s;
}

}  // namespace analysis
PROBE_END_NAMESPACE
