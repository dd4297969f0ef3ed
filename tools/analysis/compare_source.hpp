// Where the values of one side of a pair come from (an .npy file read with pread in blocks,
// or memory), how they are converted for the kernel, and the loop that runs the kernel over
// a range of positions. Files are read block by block into buffers that stay in cache: no
// whole-tensor allocation, no zero-fill. Standalone header, plain inline.
#pragma once
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <string>
#include <vector>

#include <probe/core/half.hpp>
#include "compare_kernel.hpp"

PROBE_BEGIN_NAMESPACE
namespace analysis {
namespace compare_impl {

// One side of a pair. Complex tensors are read as their components (twice the elements).
struct tensor_source {
  const char* memory = nullptr;  // the values, when in memory
  std::string path;              // else the .npy file, data at `offset`
  size_t offset = 0;
  bool swap = false;             // bytes in the other order
  dtype type = dtype::invalid;   // element type (the component type for complex)
  size_t itemsize() const { return dtype_size(type); }
};

inline dtype component_type(dtype t) {
  return t == dtype::complex64 ? dtype::float32 : t == dtype::complex128 ? dtype::float64 : t;
}

// float holds every value of these exactly.
inline bool fits_float(dtype t) {
  switch (t) {
    case dtype::boolean: case dtype::int8: case dtype::uint8: case dtype::int16: case dtype::uint16:
    case dtype::float16: case dtype::bfloat16: case dtype::float32:
      return true;
    default:
      return false;
  }
}

// Mantissa bits of a float type (0: not a float type).
inline int precision_bits(dtype t) {
  switch (t) {
    case dtype::bfloat16: return 8;
    case dtype::float16: return 11;
    case dtype::float32: return 24;
    case dtype::float64: return 53;
    default: return 0;
  }
}

// The type ULP distances are measured in: the less precise float type (invalid: none).
inline dtype ulp_type(dtype a, dtype b) {
  const int pa = precision_bits(a), pb = precision_bits(b);
  if (!pa || !pb) return dtype::invalid;
  return pa <= pb ? a : b;
}

template <class T>
inline void to_values(dtype t, const void* raw, size_t n, T* out) {
  switch (t) {
#define PROBE_CONVERT_CASE(DT, CT) \
  case DT: { const CT* p = static_cast<const CT*>(raw); for (size_t i = 0; i < n; ++i) out[i] = static_cast<T>(p[i]); break; }
    PROBE_CONVERT_CASE(dtype::int8, int8_t)
    PROBE_CONVERT_CASE(dtype::uint8, uint8_t)
    PROBE_CONVERT_CASE(dtype::int16, int16_t)
    PROBE_CONVERT_CASE(dtype::uint16, uint16_t)
    PROBE_CONVERT_CASE(dtype::int32, int32_t)
    PROBE_CONVERT_CASE(dtype::uint32, uint32_t)
    PROBE_CONVERT_CASE(dtype::int64, int64_t)
    PROBE_CONVERT_CASE(dtype::uint64, uint64_t)
    PROBE_CONVERT_CASE(dtype::float32, float)
    PROBE_CONVERT_CASE(dtype::float64, double)
#undef PROBE_CONVERT_CASE
    case dtype::boolean: {
      const uint8_t* p = static_cast<const uint8_t*>(raw);
      for (size_t i = 0; i < n; ++i) out[i] = p[i] ? T(1) : T(0);
      break;
    }
    case dtype::float16: {
      const uint16_t* p = static_cast<const uint16_t*>(raw);
      for (size_t i = 0; i < n; ++i) out[i] = static_cast<T>(half_bits_to_float(p[i]));
      break;
    }
    case dtype::bfloat16: {
      const uint16_t* p = static_cast<const uint16_t*>(raw);
      for (size_t i = 0; i < n; ++i) out[i] = static_cast<T>(bfloat16_bits_to_float(p[i]));
      break;
    }
    default:
      for (size_t i = 0; i < n; ++i) out[i] = 0;
  }
}

// Ordered integers of the values rounded to a 16-bit float type (float16 or bfloat16).
inline void to_ordered16(dtype t, const void* raw, size_t n, dtype target, int32_t* out) {
  const bool half = target == dtype::float16;
  if (t == target) {
    const uint16_t* p = static_cast<const uint16_t*>(raw);
    for (size_t i = 0; i < n; ++i) out[i] = static_cast<int32_t>(ordered16(p[i]));
    return;
  }
  static thread_local std::vector<float> tmp;
  if (tmp.size() < n) tmp.resize(n);
  to_values<float>(t, raw, n, tmp.data());
  for (size_t i = 0; i < n; ++i)
    out[i] = static_cast<int32_t>(ordered16(half ? float_to_half_bits(tmp[i]) : float_to_bfloat16_bits(tmp[i])));
}

inline void swap_in_place(char* p, size_t count, size_t width) {
  for (size_t i = 0; i < count; ++i, p += width)
    for (size_t x = 0, y = width - 1; x < y; ++x, --y) {
      const char t = p[x];
      p[x] = p[y];
      p[y] = t;
    }
}

// An open side: a file descriptor or memory; blocks are read into `raw`.
class side_reader {
 public:
  side_reader(const tensor_source& s, std::string* error) : s_(s) {
    if (s_.memory) return;
    // Non-blocking: if the file was swapped for a FIFO since its header was read, the open
    // returns at once and fstat refuses it.
    fd_ = ::open(s_.path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
    struct stat st;
    if (fd_ < 0) {
      *error = s_.path + ": cannot open: " + strerror(errno);
    } else if (::fstat(fd_, &st) != 0 || !S_ISREG(st.st_mode)) {
      *error = s_.path + ": not a regular file";
      ::close(fd_);
      fd_ = -1;
    }
  }
  ~side_reader() {
    if (fd_ >= 0) ::close(fd_);
  }
  side_reader(const side_reader&) = delete;
  side_reader& operator=(const side_reader&) = delete;

  // The bytes of elements [begin, begin+n); nullptr with *error set on a read error.
  const void* read(int64_t begin, size_t n, std::vector<char>& raw, std::string* error) {
    const size_t item = s_.itemsize();
    if (s_.memory) return s_.memory + static_cast<size_t>(begin) * item;
    const size_t bytes = n * item;
    if (raw.size() < bytes) raw.resize(bytes);
    size_t done = 0;
    const off_t at = static_cast<off_t>(s_.offset + static_cast<size_t>(begin) * item);
    while (done < bytes) {
      const ssize_t r = ::pread(fd_, raw.data() + done, bytes - done, at + static_cast<off_t>(done));
      if (r < 0 && errno == EINTR) continue;
      if (r <= 0) {
        *error = s_.path + (r < 0 ? ": read error: " + std::string(strerror(errno)) : ": truncated while reading the data");
        return nullptr;
      }
      done += static_cast<size_t>(r);
    }
    if (s_.swap) swap_in_place(raw.data(), n, item);
    return raw.data();
  }

 private:
  const tensor_source& s_;
  int fd_ = -1;
};

// Buffers one worker reuses from chunk to chunk.
struct worker_space {
  std::vector<char> raw_a, raw_b;
  std::vector<float> fa, fb;
  std::vector<double> da, db;
  std::vector<int32_t> oa, ob;
  hist_workspace abs_hist, rel_hist;
};

constexpr size_t read_block = 32768;  // elements per read: 128 KiB of float32 per side

template <class T>
inline const T* as_values(const tensor_source& s, const void* raw, size_t n, std::vector<T>& buf) {
  if ((sizeof(T) == 4 && s.type == dtype::float32) || (sizeof(T) == 8 && s.type == dtype::float64))
    return static_cast<const T*>(raw);
  if (buf.size() < n) buf.resize(n);
  to_values<T>(s.type, raw, n, buf.data());
  return buf.data();
}
inline std::vector<float>& values_buffer(worker_space& w, bool a, float*) { return a ? w.fa : w.fb; }
inline std::vector<double>& values_buffer(worker_space& w, bool a, double*) { return a ? w.da : w.db; }

// Runs the kernel over positions [begin, end) of a pair into *p.
template <class T, ulp_mode U>
inline void run_range(const tensor_source& a, const tensor_source& b, int64_t begin, int64_t end,
                      const kernel_settings& s, dtype ulp16, worker_space& w, partial* p) {
  std::string error;
  side_reader ra(a, &error), rb(b, &error);
  if (!error.empty()) {
    p->error = error;
    return;
  }
  hist_workspace* hr = s.want_rel_hist ? &w.rel_hist : nullptr;
  for (int64_t at = begin; at < end;) {
    const size_t n = static_cast<size_t>(end - at < static_cast<int64_t>(read_block) ? end - at : static_cast<int64_t>(read_block));
    const void* raw_a = ra.read(at, n, w.raw_a, &error);
    const void* raw_b = raw_a ? rb.read(at, n, w.raw_b, &error) : nullptr;
    if (!raw_b) {
      p->error = error;
      break;
    }
    const T* va = as_values<T>(a, raw_a, n, values_buffer(w, true, static_cast<T*>(nullptr)));
    const T* vb = as_values<T>(b, raw_b, n, values_buffer(w, false, static_cast<T*>(nullptr)));
    const int32_t* oa = nullptr;
    const int32_t* ob = nullptr;
    if (U == ulp_mode::staged) {
      if (w.oa.size() < n) w.oa.resize(n), w.ob.resize(n);
      to_ordered16(a.type, raw_a, n, ulp16, w.oa.data());
      to_ordered16(b.type, raw_b, n, ulp16, w.ob.data());
      oa = w.oa.data();
      ob = w.ob.data();
    }
    for (size_t i = 0; i < n; i += block) {
      const size_t m = n - i < block ? n - i : block;
      run_block<T, U>(va + i, vb + i, oa ? oa + i : nullptr, ob ? ob + i : nullptr, m, at + static_cast<int64_t>(i), s, *p,
                      w.abs_hist, hr);
    }
    at += static_cast<int64_t>(n);
  }
  w.abs_hist.flush(&p->abs_hist);
  if (hr) hr->flush(&p->rel_hist);
}

// Which instantiation of the kernel a pair needs.
struct kernel_choice {
  bool wide = false;  // double values
  ulp_mode ulp = ulp_mode::none;
  dtype ulp16 = dtype::invalid;  // for ulp_mode::staged
};

inline kernel_choice choose_kernel(dtype a, dtype b) {
  kernel_choice k;
  k.wide = !fits_float(a) || !fits_float(b);
  const dtype u = ulp_type(a, b);
  if (u == dtype::float64) k.ulp = ulp_mode::f64_bits;
  else if (u == dtype::float32) k.ulp = k.wide ? ulp_mode::f32_round : ulp_mode::f32_bits;
  else if (u == dtype::float16 || u == dtype::bfloat16) {
    k.ulp = ulp_mode::staged;
    k.ulp16 = u;
  }
  return k;
}

inline void run_chosen(const kernel_choice& k, const tensor_source& a, const tensor_source& b, int64_t begin, int64_t end,
                       const kernel_settings& s, worker_space& w, partial* p) {
  if (!k.wide) {
    switch (k.ulp) {
      case ulp_mode::f32_bits: return run_range<float, ulp_mode::f32_bits>(a, b, begin, end, s, k.ulp16, w, p);
      case ulp_mode::staged: return run_range<float, ulp_mode::staged>(a, b, begin, end, s, k.ulp16, w, p);
      default: return run_range<float, ulp_mode::none>(a, b, begin, end, s, k.ulp16, w, p);
    }
  }
  switch (k.ulp) {
    case ulp_mode::f64_bits: return run_range<double, ulp_mode::f64_bits>(a, b, begin, end, s, k.ulp16, w, p);
    case ulp_mode::f32_round: return run_range<double, ulp_mode::f32_round>(a, b, begin, end, s, k.ulp16, w, p);
    case ulp_mode::staged: return run_range<double, ulp_mode::staged>(a, b, begin, end, s, k.ulp16, w, p);
    default: return run_range<double, ulp_mode::none>(a, b, begin, end, s, k.ulp16, w, p);
  }
}

}  // namespace compare_impl
}  // namespace analysis
PROBE_END_NAMESPACE
