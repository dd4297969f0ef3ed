// probe::compute_health against a reference that visits every element by its multi-index and
// computes the moments with a two-pass in long double, on adversarial data.
#include <doctest/doctest.h>
#include <probe/probe.hpp>
#include <probe/core/stats.hpp>

#include <cmath>
#include <complex>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

namespace {

struct reference {
  int64_t count = 0, finite = 0, nan = 0, pos_inf = 0, neg_inf = 0, zero = 0, subnormal = 0,
          negative = 0, positive = 0;
  double min = NAN, max = NAN;
  long double mean = NAN, stdev = NAN;
};

template <class T>
T load_as(const char* p) {
  T t;
  std::memcpy(&t, p, sizeof t);
  return t;
}

// The element's real values (one, or two for complex), as doubles.
int values_at(const probe::tensor_view& v, const char* p, double* out) {
  using probe::dtype;
  switch (v.type) {
    case dtype::boolean: out[0] = *p ? 1 : 0; return 1;
    case dtype::int8: out[0] = load_as<int8_t>(p); return 1;
    case dtype::uint8: out[0] = load_as<uint8_t>(p); return 1;
    case dtype::int16: out[0] = load_as<int16_t>(p); return 1;
    case dtype::uint16: out[0] = load_as<uint16_t>(p); return 1;
    case dtype::int32: out[0] = load_as<int32_t>(p); return 1;
    case dtype::uint32: out[0] = load_as<uint32_t>(p); return 1;
    case dtype::int64: out[0] = static_cast<double>(load_as<int64_t>(p)); return 1;
    case dtype::uint64: out[0] = static_cast<double>(load_as<uint64_t>(p)); return 1;
    case dtype::float16: out[0] = probe::half_bits_to_float(load_as<uint16_t>(p)); return 1;
    case dtype::bfloat16: out[0] = probe::bfloat16_bits_to_float(load_as<uint16_t>(p)); return 1;
    case dtype::float32: out[0] = load_as<float>(p); return 1;
    case dtype::float64: out[0] = load_as<double>(p); return 1;
    case dtype::complex64:
      out[0] = load_as<float>(p);
      out[1] = load_as<float>(p + 4);
      return 2;
    case dtype::complex128:
      out[0] = load_as<double>(p);
      out[1] = load_as<double>(p + 8);
      return 2;
    default: return 0;
  }
}

double smallest_normal(probe::dtype t) {
  switch (t) {
    case probe::dtype::float16: return std::ldexp(1.0, -14);
    case probe::dtype::bfloat16:
    case probe::dtype::float32:
    case probe::dtype::complex64: return std::numeric_limits<float>::min();
    case probe::dtype::float64:
    case probe::dtype::complex128: return std::numeric_limits<double>::min();
    default: return 0;
  }
}

reference compute_reference(const probe::tensor_view& v) {
  reference r;
  r.count = v.numel();
  std::vector<double> fin;
  const double tiny = smallest_normal(v.type);
  std::vector<int64_t> idx(static_cast<size_t>(v.ndim), 0);
  for (int64_t e = 0; e < r.count; ++e) {
    int64_t off = 0;
    for (int d = 0; d < v.ndim; ++d) off += idx[static_cast<size_t>(d)] * v.strides[d];
    double x[2];
    const int k = values_at(v, static_cast<const char*>(v.data) + off * static_cast<int64_t>(v.itemsize()), x);
    for (int j = 0; j < k; ++j) {
      if (std::isnan(x[j])) {
        ++r.nan;
      } else if (std::isinf(x[j])) {
        ++(x[j] > 0 ? r.pos_inf : r.neg_inf);
      } else {
        fin.push_back(x[j]);
        r.zero += x[j] == 0;
        r.subnormal += x[j] != 0 && std::fabs(x[j]) < tiny;
        r.negative += x[j] < 0;
        r.positive += x[j] > 0;
      }
    }
    for (int d = v.ndim - 1; d >= 0; --d) {
      if (++idx[static_cast<size_t>(d)] < v.shape[d]) break;
      idx[static_cast<size_t>(d)] = 0;
    }
  }
  r.finite = static_cast<int64_t>(fin.size());
  if (!fin.empty()) {
    long double s = 0;
    r.min = r.max = fin[0];
    for (double x : fin) {
      s += x;
      r.min = std::min(r.min, x);
      r.max = std::max(r.max, x);
    }
    r.mean = s / static_cast<long double>(fin.size());
    long double correction = 0;  // a second pass removes the first sum's rounding
    for (double x : fin) correction += x - r.mean;
    r.mean += correction / static_cast<long double>(fin.size());
    long double ss = 0;
    for (double x : fin) ss += (x - r.mean) * (x - r.mean);
    r.stdev = std::sqrt(ss / static_cast<long double>(fin.size()));
  }
  return r;
}

bool float_kernel(probe::dtype t) {
  using probe::dtype;
  return t != dtype::float64 && t != dtype::complex128 && t != dtype::int32 &&
         t != dtype::uint32 && t != dtype::int64 && t != dtype::uint64;
}

// Compares everything; moments within the accuracy of the kernel's accumulation type.
void check_against_reference(const probe::tensor_view& v, const char* what) {
  const std::string context = std::string(what) + " dtype=" + probe::dtype_name(v.type) +
                              " numel=" + std::to_string(v.numel());
  INFO(context);
  const probe::health h = probe::compute_health(v);
  const reference r = compute_reference(v);
  REQUIRE(h.valid);
  CHECK(h.type == v.type);
  CHECK(h.count == r.count);
  CHECK(h.finite == r.finite);
  CHECK(h.nan == r.nan);
  CHECK(h.pos_inf == r.pos_inf);
  CHECK(h.neg_inf == r.neg_inf);
  CHECK(h.zero == r.zero);
  CHECK(h.subnormal == r.subnormal);
  CHECK(h.negative == r.negative);
  CHECK(h.positive == r.positive);
  if (r.finite == 0) {
    CHECK(std::isnan(h.min));
    CHECK(std::isnan(h.max));
    CHECK(std::isnan(h.mean));
    CHECK(std::isnan(h.std));
    return;
  }
  CHECK(h.min == r.min);
  CHECK(h.max == r.max);
  const long double rel = float_kernel(v.type) ? 1e-7L : 1e-13L;
  const long double scale = std::fabs(r.mean) > 0 ? std::fabs(r.mean) : 0;
  CHECK(std::fabs(h.mean - r.mean) <= rel * r.stdev + 1e-15L * scale + 1e-300L);
  CHECK(std::fabs(h.std - r.stdev) <= rel * r.stdev + 1e-300L);
}

template <class T>
probe::tensor_view view_of(const std::vector<T>& v) {
  return probe::view_raw(v.data(), probe::dtype_of<T>::value, {static_cast<int64_t>(v.size())});
}

const size_t sizes[] = {1, 2, 3, 15, 16, 17, 63, 1023, 2047, 2048, 2049, 4095, 4096, 4097, 3 * 4096 + 5, 100003};

}  // namespace

TEST_CASE("stats: large offset, small spread (cancellation-prone)") {
  std::mt19937_64 rng(1);
  for (size_t n : sizes) {
    // float32: 2^22 + k/2, ulp 0.5; the naive sum-of-squares formula loses everything here.
    std::vector<float> f(n);
    for (auto& x : f) x = 4194304.0f + static_cast<float>(rng() % 16) * 0.5f;
    check_against_reference(view_of(f), "float32 offset 2^22");
    std::vector<double> d(n);
    std::normal_distribution<double> g(1e9, 1e-3);
    for (auto& x : d) x = g(rng);
    check_against_reference(view_of(d), "float64 offset 1e9, std 1e-3");
    if (n > 16) {
      const probe::health h = probe::compute_health(view_of(d));
      CHECK(h.std > 0.5e-3);
      CHECK(h.std < 2e-3);
    }
  }
}

TEST_CASE("stats: a jump in level between blocks, and lane-structured data") {
  // Blocks are centred on the running mean; after the jump that centre is far from the data.
  std::mt19937_64 rng(6);
  std::vector<float> f(20000);
  for (size_t i = 0; i < f.size(); ++i)
    f[i] = (i < 9000 ? 0.0f : 1048576.0f) + static_cast<float>(rng() % 8) * 0.125f;
  check_against_reference(view_of(f), "float32 level jump");
  std::vector<double> d(20000);
  for (size_t i = 0; i < d.size(); ++i)
    d[i] = (i < 5000 ? -1e12 : 1e12) + static_cast<double>(rng() % 1000) * 1e-4;
  check_against_reference(view_of(d), "float64 level jump");
  // One outlier: the first block's provisional centre (its mid-range) is far from its mean.
  std::vector<float> o(4096);
  for (auto& x : o) x = static_cast<float>(rng() % 1000) * 1e-3f;
  o[100] = 1e6f;
  check_against_reference(view_of(o), "float32 outlier");
  // Values that repeat with the vector width (interleaved channels): partial sums per lane
  // drift apart, which plain float accumulation would not survive.
  std::vector<float> g(4096 * 3);
  for (size_t i = 0; i < g.size(); ++i) g[i] = i % 2 ? -static_cast<float>(rng() % 7) : static_cast<float>(rng() % 100);
  check_against_reference(view_of(g), "float32 interleaved");
}

TEST_CASE("stats: NaN and infinities anywhere, including block tails") {
  std::mt19937_64 rng(2);
  for (size_t n : sizes) {
    std::vector<float> f(n);
    std::vector<double> d(n);
    for (size_t i = 0; i < n; ++i) {
      const double x = static_cast<double>(static_cast<int64_t>(rng() % 2001) - 1000) / 7.0;
      f[i] = static_cast<float>(x);
      d[i] = x;
    }
    for (int k = 0; k < 3; ++k) {
      const size_t at = rng() % n;
      const double special[] = {NAN, INFINITY, -INFINITY, -NAN};
      f[at] = static_cast<float>(special[k % 4]);
      d[(at * 7) % n] = special[(k + 1) % 4];
    }
    f[n - 1] = NAN;  // the last element lives in the tail buffer
    check_against_reference(view_of(f), "float32 with NaN/Inf");
    check_against_reference(view_of(d), "float64 with NaN/Inf");
  }
  std::vector<float> all_nan(5000, NAN);
  const probe::health h = probe::compute_health(view_of(all_nan));
  CHECK(h.nan == 5000);
  CHECK(h.finite == 0);
  CHECK(std::isnan(h.mean));
  check_against_reference(view_of(all_nan), "all NaN");
  std::vector<double> infs = {INFINITY, -INFINITY, INFINITY, 1.0};
  const probe::health hi = probe::compute_health(view_of(infs));
  CHECK(hi.pos_inf == 2);
  CHECK(hi.neg_inf == 1);
  CHECK(hi.finite == 1);
  CHECK(hi.mean == 1.0);
  CHECK(hi.std == 0.0);
}

TEST_CASE("stats: zeros, signed zeros and subnormals") {
  std::mt19937_64 rng(3);
  std::vector<float> f(10000);
  for (auto& x : f) {
    switch (rng() % 5) {
      case 0: x = 0.0f; break;
      case 1: x = -0.0f; break;
      case 2: x = std::numeric_limits<float>::denorm_min() * static_cast<float>(rng() % 1000 + 1); break;
      case 3: x = -std::numeric_limits<float>::min() / 2; break;
      default: x = static_cast<float>(rng() % 100) - 50.0f; break;
    }
  }
  check_against_reference(view_of(f), "float32 zeros/subnormals");
  std::vector<double> d(777);
  for (auto& x : d) x = (rng() % 2 ? 1 : -1) * std::numeric_limits<double>::denorm_min() * static_cast<double>(rng() % 50);
  check_against_reference(view_of(d), "float64 subnormals");
  // float16 subnormals are normal floats: counted by float16's own smallest normal.
  std::vector<probe::float16> h;
  for (uint32_t b = 0; b < 65536; ++b) h.push_back(probe::float16{static_cast<uint16_t>(b)});
  const probe::health hh = probe::compute_health(view_of(h));
  CHECK(hh.subnormal == 2 * 1023);
  CHECK(hh.nan == 2 * 1023);
  CHECK(hh.pos_inf == 1);
  CHECK(hh.neg_inf == 1);
  CHECK(hh.zero == 2);
  check_against_reference(view_of(h), "every float16");
  std::vector<probe::bfloat16> b;
  for (uint32_t x = 0; x < 65536; ++x) b.push_back(probe::bfloat16{static_cast<uint16_t>(x)});
  const probe::health hb = probe::compute_health(view_of(b));
  CHECK(hb.subnormal == 2 * 127);
  check_against_reference(view_of(b), "every bfloat16");
}

TEST_CASE("stats: values near the top of the range do not overflow") {
  std::vector<float> f(5000);
  for (size_t i = 0; i < f.size(); ++i) f[i] = (i % 2 ? 3e38f : -3e38f) * (1.0f - static_cast<float>(i % 7) * 1e-3f);
  check_against_reference(view_of(f), "float32 +-3e38");
  std::vector<float> g(3000, 3.4e38f);
  check_against_reference(view_of(g), "float32 sum overflows");
  std::vector<float> w(4096);
  for (size_t i = 0; i < w.size(); ++i) w[i] = i % 2 ? 1e20f : -1e20f;  // squares overflow float
  check_against_reference(view_of(w), "float32 squares overflow");
  std::vector<double> d(3000);
  for (size_t i = 0; i < d.size(); ++i) d[i] = (i % 3 ? 1.7e308 : -1.7e308);
  const probe::health h = probe::compute_health(view_of(d));
  CHECK(h.finite == 3000);
  CHECK(std::isfinite(h.mean));
  CHECK(std::isfinite(h.std));
  CHECK(h.std > 1e308);
}

TEST_CASE("stats: every dtype") {
  std::mt19937_64 rng(4);
  const size_t n = 9000;
  auto fill = [&](auto& v, auto make) {
    v.resize(n);
    for (auto& x : v) x = make();
  };
  std::vector<uint8_t> bools_raw;  // bool storage, any nonzero byte is true
  fill(bools_raw, [&] { return static_cast<uint8_t>(rng() % 3 == 0 ? 0 : rng() % 2 + 1); });
  check_against_reference(probe::view_raw(bools_raw.data(), probe::dtype::boolean, {int64_t(n)}), "bool");
  std::vector<int8_t> i8;
  fill(i8, [&] { return static_cast<int8_t>(rng()); });
  check_against_reference(view_of(i8), "int8");
  std::vector<uint8_t> u8;
  fill(u8, [&] { return static_cast<uint8_t>(rng()); });
  check_against_reference(view_of(u8), "uint8");
  std::vector<int16_t> i16;
  fill(i16, [&] { return static_cast<int16_t>(rng()); });
  check_against_reference(view_of(i16), "int16");
  std::vector<uint16_t> u16;
  fill(u16, [&] { return static_cast<uint16_t>(rng()); });
  check_against_reference(view_of(u16), "uint16");
  std::vector<int32_t> i32;
  fill(i32, [&] { return static_cast<int32_t>(rng()); });
  check_against_reference(view_of(i32), "int32");
  std::vector<uint32_t> u32;
  fill(u32, [&] { return static_cast<uint32_t>(rng()); });
  check_against_reference(view_of(u32), "uint32");
  std::vector<int64_t> i64;
  fill(i64, [&] { return static_cast<int64_t>(rng()); });
  i64[5] = std::numeric_limits<int64_t>::min();
  i64[6] = std::numeric_limits<int64_t>::max();
  check_against_reference(view_of(i64), "int64");
  std::vector<uint64_t> u64;
  fill(u64, [&] { return static_cast<uint64_t>(rng()); });
  check_against_reference(view_of(u64), "uint64");
  std::vector<probe::float16> f16;
  fill(f16, [&] { return probe::to_float16(static_cast<float>(static_cast<int>(rng() % 4000) - 2000) / 16); });
  check_against_reference(view_of(f16), "float16");
  std::vector<probe::bfloat16> bf16;
  fill(bf16, [&] { return probe::to_bfloat16(static_cast<float>(static_cast<int>(rng() % 4000) - 2000) * 1e3f); });
  check_against_reference(view_of(bf16), "bfloat16");
  std::vector<std::complex<float>> c64;
  fill(c64, [&] { return std::complex<float>(static_cast<float>(rng() % 100), -static_cast<float>(rng() % 7)); });
  c64[3] = {NAN, 1};
  c64[4] = {2, INFINITY};
  check_against_reference(view_of(c64), "complex64");
  std::vector<std::complex<double>> c128;
  fill(c128, [&] { return std::complex<double>(1e6 + static_cast<double>(rng() % 100), static_cast<double>(rng() % 9)); });
  check_against_reference(view_of(c128), "complex128");
  const probe::health hc = probe::compute_health(view_of(c64));
  CHECK(hc.count == static_cast<int64_t>(n));
  CHECK(hc.nan + hc.pos_inf + hc.neg_inf + hc.finite == 2 * hc.count);

  // Integers never report NaN, infinities or subnormals.
  const probe::health hi = probe::compute_health(view_of(i32));
  CHECK(hi.nan + hi.pos_inf + hi.neg_inf + hi.subnormal == 0);
  CHECK(hi.finite == hi.count);
  const std::vector<uint8_t> flags = {1, 0, 0, 1};
  const probe::health hb = probe::compute_health(probe::view_raw(flags.data(), probe::dtype::boolean, {4}));
  CHECK(hb.zero == 2);
  CHECK(hb.positive == 2);
  CHECK(hb.mean == 0.5);
  CHECK(hb.std == 0.5);
}

TEST_CASE("stats: strided views") {
  std::mt19937_64 rng(5);
  std::vector<float> f(64 * 96);
  for (auto& x : f) x = static_cast<float>(rng() % 1000) / 3.0f - 100.0f;
  f[7] = NAN;
  f[96 * 3 + 1] = -INFINITY;
  // Transposed.
  check_against_reference(probe::view(f.data(), {96, 64}, {1, 96}), "transposed");
  // Every other row and column.
  check_against_reference(probe::view(f.data(), {32, 48}, {192, 2}), "step 2");
  // Reversed (negative strides).
  check_against_reference(probe::view(f.data() + f.size() - 1, {64, 96}, {-96, -1}), "reversed");
  // Broadcast (stride 0) and size-1 dimensions.
  check_against_reference(probe::view(f.data(), {5, 1, 96}, {0, 7, 1}), "broadcast");
  // A 3-d slice with a large inner run.
  check_against_reference(probe::view(f.data(), {4, 3, 4000}, {1, 1, 1}), "overlapping");
  std::vector<double> d(5000 * 3);
  for (auto& x : d) x = static_cast<double>(rng() % 100000) * 1e-3 + 1e7;
  check_against_reference(probe::view(d.data(), {5000}, {3}), "float64 column");
  std::vector<int16_t> s(3000);
  for (auto& x : s) x = static_cast<int16_t>(rng());
  check_against_reference(probe::view(s.data(), {30, 50}, {100, 2}), "int16 strided");
  std::vector<std::complex<float>> c(600);
  for (auto& x : c) x = {static_cast<float>(rng() % 50), static_cast<float>(rng() % 5)};
  check_against_reference(probe::view(c.data(), {20, 10}, {1, 60}), "complex64 transposed");
  std::vector<probe::float16> h(4000);
  for (auto& x : h) x = probe::to_float16(static_cast<float>(rng() % 200) / 8.0f);
  check_against_reference(probe::view(h.data(), {2000}, {2}), "float16 strided");
}

TEST_CASE("stats: empty, 0-d, invalid and device views") {
  std::vector<float> none;
  const probe::health e = probe::compute_health(probe::view(none.data(), 0));
  CHECK(e.valid);
  CHECK(e.count == 0);
  CHECK(e.finite == 0);
  CHECK(std::isnan(e.mean));
  float f[4] = {};
  const probe::health e2 = probe::compute_health(probe::view(f, {3, 0, 2}));
  CHECK(e2.valid);
  CHECK(e2.count == 0);
  const double scalar = -2.5;
  const probe::health s = probe::compute_health(probe::view(scalar));
  CHECK(s.valid);
  CHECK(s.count == 1);
  CHECK(s.min == -2.5);
  CHECK(s.max == -2.5);
  CHECK(s.mean == -2.5);
  CHECK(s.std == 0);
  CHECK(s.negative == 1);
  CHECK_FALSE(probe::compute_health(probe::view(f, 4).on_cuda()).valid);
  CHECK_FALSE(probe::compute_health(probe::view(f, {1, 1, 1, 1, 1, 1, 1, 1, 1})).valid);
  CHECK_FALSE(probe::compute_health(probe::view_raw(nullptr, probe::dtype::float32, {3})).valid);
  CHECK(probe::compute_health(probe::view_raw(nullptr, probe::dtype::float32, {0})).valid);
  CHECK_FALSE(probe::compute_health(probe::tensor_view{}).valid);
  CHECK_FALSE(probe::compute_health(probe::view(f, {-2, -2})).valid);
}

TEST_CASE("stats: exact results on small known data") {
  const std::vector<float> x = {1, 2, 3, 4, -0.0f, NAN, INFINITY};
  const probe::health h = probe::compute_health(view_of(x));
  CHECK(h.count == 7);
  CHECK(h.finite == 5);
  CHECK(h.nan == 1);
  CHECK(h.pos_inf == 1);
  CHECK(h.zero == 1);
  CHECK(h.positive == 4);
  CHECK(h.negative == 0);
  CHECK(h.min == 0);
  CHECK(h.max == 4);
  CHECK(h.mean == doctest::Approx(2.0).epsilon(1e-12));
  CHECK(h.std == doctest::Approx(std::sqrt(2.0)).epsilon(1e-7));
  CHECK(h.nonfinite() == 2);
  CHECK_FALSE(h.all_finite());
}
