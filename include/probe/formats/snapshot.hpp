// Reading snapshots: the folders the dump writes with --probe_dump_snapshots
// (snapshots/op_000012.norm/{snapshot.json, in.x.npy, out.y.npy}), for replay and the CLI.
//
//   std::vector<std::string> dirs;
//   std::string err;
//   probe::snapshot::find("/tmp/dump", &dirs, &err);      // a snapshot, a dump folder, a glob
//   probe::snapshot::info s;
//   if (!probe::snapshot::read(dirs[0], &s, &err)) ...      // err: one line naming the file
//
// snapshot.json: {"format": "probe-snapshot-1", "status": "running|complete|exception",
// "op", "type", "seq", "step", "occurrence", "attrs": {...}, "inputs": [...], "outputs":
// [...]}, each tensor {"slot", "key", "file", "dtype", "shape", "stats", "producer"}; an
// implicit input recorded after its kernel has no "file" but "prior" and "pieces".
// Everything read is checked (file names stay in the folder, known dtypes, sane shapes), so
// a corrupt or hostile snapshot gives an error, never a crash. Internal header.
#pragma once
#include <stdint.h>

#include <string>
#include <vector>

#include "../core/stats.hpp"
#include "json_value.hpp"

PROBE_BEGIN_NAMESPACE
namespace snapshot {

// A byte range of an implicit input's prior state: `bytes` from byte `offset` of the input
// are bytes `at`.. of a producer's output, whose file `file` ("op_000003.bounce/out.f.npy")
// lies in a sibling snapshot folder.
struct piece {
  std::string key, file;
  uint64_t offset = 0, bytes = 0, at = 0;
};

struct tensor_entry {
  std::string slot, key, file;  // file: a plain name inside the snapshot folder ("" : none)
  std::string producer;         // inputs: the output key it came from ("" if none)
  bool inout = false;           // inputs: the prior state of the output of the same slot,
  bool implicit = false;        // declared (op.inout) or found by the library
  // Implicit inputs recorded after the kernel: "producers" (the prior state is `pieces`) or
  // "unknown"; "" for inputs with a file.
  std::string prior;
  std::vector<piece> pieces;
  dtype type = dtype::invalid;
  int ndim = 0;
  int64_t shape[max_dims] = {};
  bool have_stats = false;
  health stats;

  int64_t numel() const noexcept {
    int64_t n = 1;
    for (int i = 0; i < ndim; ++i) n *= shape[i];
    return n;
  }
};

struct info {
  std::string dir;     // the snapshot folder
  std::string status;  // running (the op never ended: a crash), complete, exception
  std::string op, type;
  uint64_t seq = 0, occurrence = 0;
  int64_t step = 0;
  json::value attrs;   // an object (empty when the op had none)
  std::vector<tensor_entry> inputs, outputs;

  std::string key() const { return op + "#" + std::to_string(occurrence); }
  const tensor_entry* input(const std::string& slot) const noexcept { return find_slot(inputs, slot); }
  const tensor_entry* output(const std::string& slot) const noexcept { return find_slot(outputs, slot); }

 private:
  static const tensor_entry* find_slot(const std::vector<tensor_entry>& list, const std::string& slot) noexcept {
    for (const tensor_entry& t : list)
      if (t.slot == slot) return &t;
    return nullptr;
  }
};

// Snapshot files larger than this are refused (a snapshot.json lists a few tensors).
constexpr size_t max_json_bytes = size_t{16} << 20;

// Reads dir/snapshot.json; false with *error ("DIR/snapshot.json: what is wrong").
PROBE_API bool read(const std::string& dir, info* out, std::string* error);

// The snapshot folders `paths` names, in order: each line of `paths` is a snapshot folder
// (or its snapshot.json), a dump folder (its snapshots/, rank folders too), a folder of
// snapshot folders, or a glob of any of these. False with *error for a path that names none.
PROBE_API bool find(const std::string& paths, std::vector<std::string>* dirs, std::string* error);

// "float32[8,64]"
PROBE_API std::string describe(const tensor_entry& t);

}  // namespace snapshot
PROBE_END_NAMESPACE
