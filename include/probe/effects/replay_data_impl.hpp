// replay_data: definitions (see replay_data.hpp).
#pragma once
#include <string.h>

#include "../core/half.hpp"
#include "../formats/npy.hpp"
#include "../util/fs.hpp"
#include "replay_data.hpp"

PROBE_BEGIN_NAMESPACE
namespace detail {

namespace prior {

// The folder holding the snapshot folder dir (its siblings are the producers' snapshots).
inline std::string parent_of(std::string dir) {
  while (dir.size() > 1 && dir.back() == '/') dir.pop_back();
  const size_t slash = dir.rfind('/');
  if (slash == std::string::npos) return ".";
  return slash == 0 ? "/" : dir.substr(0, slash);
}

// An implicit input's prior state, put together from the pieces of its producers' snapshot
// files (they were recorded as those ops ended; the input's own bytes never were).
inline bool assemble(const std::string& dir, const snapshot::tensor_entry& t, tensor* out, std::string* error) {
  if (t.prior != "producers" || t.pieces.empty()) {
    *error = "its prior state is unknown (some of its bytes had no recorded producer, or a producer has no "
             "contiguous snapshot file)";
    return false;
  }
  tensor v(t.type, dims(t.shape, static_cast<size_t>(t.ndim)));
  const uint64_t size = v.nbytes();
  uint64_t covered = 0;
  const std::string up = parent_of(dir);
  for (const snapshot::piece& p : t.pieces) {
    if (p.offset > size || p.bytes > size - p.offset) {
      *error = "a piece of its prior state (" + p.key + ") lies outside it";
      return false;
    }
    const std::string path = join_path(up, p.file);
    std::string why;
    const tensor from = npy::read_nofollow(path, &why);
    if (from.empty() && p.bytes) {
      *error = "its prior state is unknown: producer " + p.key + ": " + why;
      return false;
    }
    if (p.at > from.nbytes() || p.bytes > from.nbytes() - p.at) {
      *error = path + " is smaller than the piece of it snapshot.json names";
      return false;
    }
    memcpy(static_cast<char*>(v.data()) + p.offset, static_cast<const char*>(from.data()) + p.at, p.bytes);
    covered += p.bytes;
  }
  if (covered != size) {
    *error = "its prior state is unknown (its producers' pieces cover " + std::to_string(covered) + " of its " +
             std::to_string(size) + " bytes)";
    return false;
  }
  *out = std::move(v);
  return true;
}

}  // namespace prior

PROBE_API bool read_recorded(const std::string& dir, const snapshot::tensor_entry& t, tensor* out, std::string* error) noexcept {
  try {
    if (t.file.empty() && !t.prior.empty()) return prior::assemble(dir, t, out, error);
    const std::string path = join_path(dir, t.file);
    std::string why;
    tensor v = npy::read_nofollow(path, &why);
    if (v.empty()) {
      *error = why;
      return false;
    }
    bool same = v.type() == t.type && v.ndim() == t.ndim;
    for (int i = 0; same && i < t.ndim; ++i) same = v.shape(i) == t.shape[i];
    if (!same) {
      snapshot::tensor_entry held = t;
      held.type = v.type();
      held.ndim = v.ndim();
      for (int i = 0; i < v.ndim(); ++i) held.shape[i] = v.shape(i);
      *error = path + " holds " + snapshot::describe(held) + ", snapshot.json records " + snapshot::describe(t);
      return false;
    }
    *out = std::move(v);
    return true;
  } catch (...) {
    *error = "out of memory reading " + t.file;
    return false;
  }
}

namespace fake {

// splitmix64: small, fast, and the same sequence on every platform.
struct rng {
  uint64_t s;
  uint64_t next() noexcept {
    uint64_t z = (s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }
  double unit() noexcept { return static_cast<double>(next() >> 11) * 0x1p-53; }  // [0, 1)
};

template <class T, class Make>
void fill(void* data, int64_t n, Make make) {
  T* p = static_cast<T*>(data);
  for (int64_t i = 0; i < n; ++i) p[i] = make();
}

// The values a dtype holds, as doubles: int64 and uint64 end at the largest double below
// 2^63 and 2^64, floats at their largest finite value.
inline void limits(dtype t, double* lo, double* hi) noexcept {
  double top = 1.7976931348623157e308;
  switch (t) {
    case dtype::int8: top = 127; break;
    case dtype::int16: top = 32767; break;
    case dtype::int32: top = 2147483647.0; break;
    case dtype::int64: top = 9223372036854774784.0; break;
    case dtype::uint8: top = 255; break;
    case dtype::uint16: top = 65535; break;
    case dtype::uint32: top = 4294967295.0; break;
    case dtype::uint64: top = 18446744073709549568.0; break;
    case dtype::float16: top = 65504; break;
    case dtype::bfloat16: top = 3.3895313892515355e38; break;
    case dtype::float32:
    case dtype::complex64: top = 3.4028234663852886e38; break;
    default: break;
  }
  *hi = top;
  *lo = dtype_is_unsigned_int(t) ? 0 : dtype_is_integer(t) ? -top - 1 : -top;
}

inline double clamp(double v, double lo, double hi) noexcept { return v < lo ? lo : v > hi ? hi : v; }

}  // namespace fake

PROBE_API tensor fake_tensor(const snapshot::tensor_entry& t, const std::string& op_key, uint64_t seed) {
  uint64_t h = 1469598103934665603ull ^ seed;  // FNV-1a of the key and slot, from the seed
  for (char c : op_key + "/" + t.slot) h = (h ^ static_cast<unsigned char>(c)) * 1099511628211ull;
  fake::rng g{h};
  const bool integer = dtype_is_integer(t.type);
  const bool ranged = t.have_stats && t.stats.finite > 0 && __builtin_isfinite(t.stats.min) && __builtin_isfinite(t.stats.max);
  double lo = ranged ? t.stats.min : integer ? (dtype_is_unsigned_int(t.type) ? 0 : -8) : -1;
  double hi = ranged ? t.stats.max : integer ? 8 : 1;
  // A snapshot written elsewhere may record any range: values past what the dtype holds
  // would not convert (undefined for integers, infinite for floats), so the range is cut to it.
  double type_lo = 0, type_hi = 0;
  fake::limits(t.type, &type_lo, &type_hi);
  lo = fake::clamp(lo, type_lo, type_hi);
  hi = fake::clamp(hi, type_lo, type_hi);
  if (integer) {
    lo = __builtin_ceil(lo);
    hi = __builtin_floor(hi);
  }
  if (!(hi >= lo)) hi = lo;
  const double span = hi - lo;  // finite for integers; for floats it may not be, so real() mixes
  auto real = [&] {
    const double u = g.unit();
    return fake::clamp(lo * (1 - u) + hi * u, lo, hi);
  };
  auto whole = [&] { return fake::clamp(lo + __builtin_floor((span + 1) * g.unit()), lo, hi); };
  tensor out(t.type, dims(t.shape, static_cast<size_t>(t.ndim)));
  const int64_t n = out.numel();
  void* p = out.data();
  switch (t.type) {
    case dtype::boolean: fake::fill<uint8_t>(p, n, [&] { return static_cast<uint8_t>(g.next() >> 63); }); break;
    case dtype::int8: fake::fill<int8_t>(p, n, [&] { return static_cast<int8_t>(whole()); }); break;
    case dtype::int16: fake::fill<int16_t>(p, n, [&] { return static_cast<int16_t>(whole()); }); break;
    case dtype::int32: fake::fill<int32_t>(p, n, [&] { return static_cast<int32_t>(whole()); }); break;
    case dtype::int64: fake::fill<int64_t>(p, n, [&] { return static_cast<int64_t>(whole()); }); break;
    case dtype::uint8: fake::fill<uint8_t>(p, n, [&] { return static_cast<uint8_t>(whole()); }); break;
    case dtype::uint16: fake::fill<uint16_t>(p, n, [&] { return static_cast<uint16_t>(whole()); }); break;
    case dtype::uint32: fake::fill<uint32_t>(p, n, [&] { return static_cast<uint32_t>(whole()); }); break;
    case dtype::uint64: fake::fill<uint64_t>(p, n, [&] { return static_cast<uint64_t>(whole()); }); break;
    case dtype::float16:
      fake::fill<uint16_t>(p, n, [&] { return float_to_half_bits(static_cast<float>(real())); });
      break;
    case dtype::bfloat16:
      fake::fill<uint16_t>(p, n, [&] { return float_to_bfloat16_bits(static_cast<float>(real())); });
      break;
    case dtype::float32: fake::fill<float>(p, n, [&] { return static_cast<float>(real()); }); break;
    case dtype::float64: fake::fill<double>(p, n, real); break;
    case dtype::complex64: fake::fill<float>(p, 2 * n, [&] { return static_cast<float>(real()); }); break;
    case dtype::complex128: fake::fill<double>(p, 2 * n, real); break;
    default: break;
  }
  return out;
}

}  // namespace detail
PROBE_END_NAMESPACE
