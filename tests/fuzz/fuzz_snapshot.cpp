// Snapshots as probe replay reads them (one op's snapshot.json, written by another process
// or planted): the fields, the file names that must stay in the folder, the pieces an
// implicit input's prior state is put together from (against real .npy files beside it), and
// fake inputs drawn from the recorded statistics, which must stay inside both the recorded
// range and what the dtype can hold.
#include <probe/probe.hpp>

#include <sys/stat.h>

#include <cmath>
#include <string>

#include <probe/effects/replay_data.hpp>
#include <probe/formats/npy.hpp>
#include <probe/formats/snapshot.hpp>

#include "fuzz_input.hpp"

namespace {

// <scratch>/op holds the snapshot, with in.a.npy, in.idx.npy and out.b.npy beside it;
// <scratch>/op_000002.scale/out.b.npy is a producer's file, a piece of a prior state.
const std::string& snapshot_dir() {
  static const std::string dir = [] {
    const std::string root = probe_fuzz::scratch_dir(), op = root + "/op", producer = root + "/op_000002.scale";
    if (::mkdir(op.c_str(), 0700) != 0 || ::mkdir(producer.c_str(), 0700) != 0) abort();
    const float a[8] = {2, 2, 2, 2, 2, 2, 2, 2}, b[8] = {4, 4, 4, 4, 4, 4, 4, 4};
    const signed char idx[4] = {3, -3, 0, 127};
    if (!probe::npy::write(op + "/in.a.npy", probe::view(a, {8})) ||
        !probe::npy::write(op + "/in.idx.npy", probe::view(idx, {4})) ||
        !probe::npy::write(op + "/out.b.npy", probe::view(b, {8})) ||
        !probe::npy::write(producer + "/out.b.npy", probe::view(b, {8})))
      abort();
    return op;
  }();
  return dir;
}

// The smallest and largest value an integer dtype holds, as doubles (int64 and uint64 end at
// the largest double below 2^63 and 2^64).
void integer_limits(probe::dtype t, double* lo, double* hi) {
  using probe::dtype;
  switch (t) {
    case dtype::boolean: *lo = 0, *hi = 1; break;
    case dtype::int8: *lo = -128, *hi = 127; break;
    case dtype::int16: *lo = -32768, *hi = 32767; break;
    case dtype::int32: *lo = -2147483648.0, *hi = 2147483647.0; break;
    case dtype::int64: *lo = -9223372036854775808.0, *hi = 9223372036854774784.0; break;
    case dtype::uint8: *lo = 0, *hi = 255; break;
    case dtype::uint16: *lo = 0, *hi = 65535; break;
    case dtype::uint32: *lo = 0, *hi = 4294967295.0; break;
    default: *lo = 0, *hi = 18446744073709549568.0; break;
  }
}

void check_fake(const probe::snapshot::tensor_entry& t) {
  if (t.numel() > (1 << 14)) return;
  const probe::tensor v = probe::detail::fake_tensor(t, "op#0", 1);
  if (v.type() != t.type || v.numel() != t.numel()) __builtin_trap();
  if (t.type == probe::dtype::boolean || v.numel() == 0) return;
  const probe::health h = probe::compute_health(v.view());
  if (!h.all_finite()) __builtin_trap();  // fake data is finite, whatever the statistics say
  if (!probe::dtype_is_integer(t.type)) return;
  double lo = 0, hi = 0;
  integer_limits(t.type, &lo, &hi);
  if (h.min < lo || h.max > hi) __builtin_trap();
  // inside the recorded range wherever the recorded range and the dtype's overlap
  const bool ranged = t.have_stats && t.stats.finite > 0 && std::isfinite(t.stats.min) && std::isfinite(t.stats.max);
  if (ranged && std::ceil(t.stats.min) <= std::floor(t.stats.max) && std::ceil(t.stats.min) >= lo &&
      std::floor(t.stats.max) <= hi && (h.min < std::ceil(t.stats.min) || h.max > std::floor(t.stats.max)))
    __builtin_trap();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string& dir = snapshot_dir();
  probe_fuzz::write_file(dir + "/snapshot.json", probe_fuzz::as_text(data, size));
  probe::snapshot::info s;
  std::string error;
  if (!probe::snapshot::read(dir, &s, &error)) {
    if (error.empty()) __builtin_trap();  // a refusal says why
    return 0;
  }
  for (int side = 0; side < 2; ++side)
    for (const probe::snapshot::tensor_entry& t : side ? s.outputs : s.inputs) {
      if (probe::snapshot::describe(t).empty()) __builtin_trap();
      if (t.file.find('/') != std::string::npos || t.file == "..") __builtin_trap();  // a file outside the folder
      probe::tensor v;
      std::string why;
      if (probe::detail::read_recorded(dir, t, &v, &why)) {
        // what was read is what snapshot.json records
        if (v.type() != t.type || v.ndim() != t.ndim) __builtin_trap();
        for (int i = 0; i < t.ndim; ++i)
          if (v.shape(i) != t.shape[i]) __builtin_trap();
      } else if (why.empty()) {
        __builtin_trap();
      }
      check_fake(t);
    }
  return 0;
}
