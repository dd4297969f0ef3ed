// The per-tensor metrics of probe compare against a plain double-precision reference
// written here, element by element, for every dtype family; NaN/Inf rules; indices;
// quantiles; the minimum tolerances; check modes.
#include <doctest/doctest.h>

#include "analysis/compare_tensors.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <vector>

namespace pa = probe::analysis;

namespace {

const double inf = std::numeric_limits<double>::infinity();

struct reference {
  double max_abs = 0, mean_abs = 0, max_rel = 0, rmse = 0, cosine = 1, snr = 0, min_rtol = 0, worst = 0;
  int64_t fail = 0, finite = 0, first = -1, worst_at = -1, nan_mm = 0, inf_mm = 0;
  std::vector<double> errors;
};

reference judge(const std::vector<double>& a, const std::vector<double>& b, pa::tolerance t, double floor,
                bool equal_nan = true, bool inf_equal = false) {
  reference r;
  double se = 0, se2 = 0, aa = 0, bb = 0, ab = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    const double x = a[i], y = b[i];
    bool bad;
    if (std::isfinite(x) && std::isfinite(y)) {
      const double e = std::fabs(x - y), tol = t.atol + t.rtol * std::fabs(y);
      ++r.finite;
      r.errors.push_back(e);
      se += e;
      se2 += e * e;
      aa += x * x;
      bb += y * y;
      ab += x * y;
      r.max_abs = std::max(r.max_abs, e);
      r.max_rel = std::max(r.max_rel, e / std::max(std::fabs(y), floor));
      if (e > 0) r.min_rtol = std::max(r.min_rtol, y == 0 ? inf : e / std::fabs(y));
      bad = e > tol;
      if (bad && (r.worst_at < 0 || e / tol > r.worst)) {
        r.worst = e / tol;
        r.worst_at = static_cast<int64_t>(i);
      }
    } else if (std::isnan(x) || std::isnan(y)) {
      bad = !(std::isnan(x) && std::isnan(y) && equal_nan);
      r.nan_mm += bad;
    } else {
      bad = !(inf_equal && x == y);
      r.inf_mm += bad;
    }
    if (bad) {
      ++r.fail;
      if (r.first < 0) r.first = static_cast<int64_t>(i);
      if (!std::isfinite(x) || !std::isfinite(y)) {
        if (r.worst < inf) r.worst_at = static_cast<int64_t>(i);
        r.worst = inf;
      }
    }
  }
  const double n = r.finite ? static_cast<double>(r.finite) : 1;
  r.mean_abs = se / n;
  r.rmse = std::sqrt(se2 / n);
  r.cosine = aa == 0 && bb == 0 ? 1 : ab / std::sqrt(aa * bb);
  r.snr = se2 == 0 ? inf : 10 * std::log10(bb / se2);
  return r;
}

// Checks metrics against the reference; `lenient`: relative slack for values that the
// kernel computes in float (|a-b| of float inputs is rounded once).
void check_against(const pa::tensor_metrics& m, const reference& r, const std::vector<int64_t>& shape, double lenient = 1e-6) {
  // relative slack only (doctest adds 1.0 to the scale by default: any tiny error would pass)
  auto approx = [&](double v) { return doctest::Approx(v).epsilon(lenient).scale(1e-300); };
  CHECK(m.finite_pairs == r.finite);
  CHECK(m.fail == r.fail);
  CHECK(m.nan_mismatch == r.nan_mm);
  CHECK(m.inf_mismatch == r.inf_mm);
  CHECK(m.max_abs == approx(r.max_abs));
  CHECK(m.mean_abs == approx(r.mean_abs));
  CHECK(m.rmse == approx(r.rmse));
  CHECK(m.max_rel == approx(r.max_rel));
  CHECK(m.cosine == doctest::Approx(r.cosine).epsilon(1e-12));
  if (std::isfinite(r.snr)) CHECK(m.snr_db == approx(r.snr)); else CHECK(std::isinf(m.snr_db));
  auto flat = [&](const std::vector<int64_t>& idx) {
    int64_t f = 0;
    for (size_t d = 0; d < idx.size(); ++d) f = f * shape[d] + idx[d];
    return idx.empty() ? int64_t{-1} : f;
  };
  CHECK(flat(m.first_fail) == r.first);
  CHECK(flat(m.worst_fail) == r.worst_at);
  if (r.nan_mm + r.inf_mm == 0) {
    CHECK(m.min_atol == approx(r.max_abs));
    if (std::isinf(r.min_rtol)) CHECK(std::isinf(m.min_rtol)); else CHECK(m.min_rtol == approx(r.min_rtol));
  }
  CHECK(m.pass == (r.fail == 0));
}

std::vector<double> up(const std::vector<float>& v) { return std::vector<double>(v.begin(), v.end()); }

}  // namespace

TEST_CASE("compare metrics: float32 against a double-precision reference, every size class") {
  std::mt19937 g(7);
  std::normal_distribution<float> nd;
  for (int64_t rows : {0, 1, 3, 257, 4099}) {
    const int64_t cols = 5;
    const size_t n = static_cast<size_t>(rows * cols);
    std::vector<float> a(n), b(n);
    for (size_t i = 0; i < n; ++i) {
      b[i] = nd(g);
      a[i] = b[i] * (1 + 3e-6f * nd(g));
    }
    if (n > 40) {
      a[17] += 1e-3f;  // fails
      a[n - 2] = -a[n - 2] + 0.5f;  // fails, worse
      b[30] = 0;
      a[30] = 1e-7f;  // passes on atol, yet no rtol alone passes it
    }
    INFO("rows ", rows);
    const pa::tensor_comparison c = pa::compare_tensors(probe::view(a.data(), {rows, cols}), probe::view(b.data(), {rows, cols}));
    REQUIRE(c.error.empty());
    CHECK(c.metrics.tol.atol == 1e-5);
    CHECK(c.metrics.count == static_cast<int64_t>(n));
    check_against(c.metrics, judge(up(a), up(b), {1e-5, 1e-5}, 1e-5), {rows, cols});
    CHECK(c.metrics.ulp_valid);
  }
}

TEST_CASE("compare metrics: the tolerance that passes is the one reported") {
  std::vector<float> b(1000), a(1000);
  for (size_t i = 0; i < b.size(); ++i) {
    b[i] = 1 + static_cast<float>(i) * 0.01f;
    a[i] = b[i] + (i % 7 == 3 ? 2e-3f * static_cast<float>(i % 5) : 0.f);
  }
  const auto c = pa::compare_tensors(probe::view(a), probe::view(b), {1e-5, 1e-5});
  CHECK_FALSE(c.metrics.pass);
  const double at = c.metrics.min_atol, rt = c.metrics.min_rtol;
  CHECK(pa::compare_tensors(probe::view(a), probe::view(b), {at, 0}).metrics.pass);
  CHECK_FALSE(pa::compare_tensors(probe::view(a), probe::view(b), {at * 0.999, 0}).metrics.pass);
  CHECK(pa::compare_tensors(probe::view(a), probe::view(b), {0, rt * 1.0000001}).metrics.pass);
  CHECK_FALSE(pa::compare_tensors(probe::view(a), probe::view(b), {0, rt * 0.999}).metrics.pass);
}

TEST_CASE("compare metrics: NaN and Inf rules") {
  const float fi = std::numeric_limits<float>::infinity(), fn = std::numeric_limits<float>::quiet_NaN();
  // pairs: (nan,nan) (inf,inf) (-inf,-inf) (inf,-inf) (nan,1) (1,inf) (2,2) (3,3.5)
  std::vector<float> a = {fn, fi, -fi, fi, fn, 1, 2, 3}, b = {fn, fi, -fi, -fi, 1, fi, 2, 3.5f};
  const auto d = pa::compare_tensors(probe::view(a), probe::view(b));
  CHECK(d.metrics.nan_mismatch == 1);  // (nan, 1)
  CHECK(d.metrics.inf_mismatch == 4);  // inf pairs fail by default, (inf,-inf), (1,inf)
  CHECK(d.metrics.fail == 6);
  CHECK(d.metrics.finite_pairs == 2);
  CHECK(d.metrics.max_abs == 0.5);
  CHECK(d.metrics.first_fail == std::vector<int64_t>{1});
  CHECK(d.metrics.worst_fail == std::vector<int64_t>{1});
  CHECK(std::isinf(d.metrics.min_atol));
  check_against(d.metrics, judge(up(a), up(b), {1e-5, 1e-5}, 1e-5), {8});

  pa::check_settings s;
  s.inf_equal = true;
  s.equal_nan = false;
  const auto e = pa::compare_tensors(probe::view(a), probe::view(b), {-1, -1}, s);
  CHECK(e.metrics.nan_mismatch == 2);  // (nan,nan) now fails too
  CHECK(e.metrics.inf_mismatch == 2);  // (inf,-inf), (1,inf)
  CHECK(e.metrics.first_fail == std::vector<int64_t>{0});
  check_against(e.metrics, judge(up(a), up(b), {1e-5, 1e-5}, 1e-5, false, true), {8});

  // a block that is all finite but whose difference overflows float
  std::vector<float> big = {3e38f, 1}, neg = {-3e38f, 1};
  const auto o = pa::compare_tensors(probe::view(big), probe::view(neg));
  CHECK(o.metrics.finite_pairs == 2);
  CHECK(o.metrics.max_abs == doctest::Approx(6e38));
  CHECK(o.metrics.nan_mismatch + o.metrics.inf_mismatch == 0);
}

TEST_CASE("compare metrics: ULP distances") {
  std::vector<float> b = {1.0f, 0.0f, -0.0f, 1e-45f, 100.0f}, a = b;
  a[0] = std::nextafter(1.0f, 2.0f);
  const auto c = pa::compare_tensors(probe::view(a), probe::view(b));
  CHECK(c.metrics.max_ulp == 1);
  a = b;
  a[1] = -0.0f;  // -0 against +0: no distance
  CHECK(pa::compare_tensors(probe::view(a), probe::view(b)).metrics.max_ulp == 0);
  a[3] = -1e-45f;  // the smallest subnormals on either side of zero
  CHECK(pa::compare_tensors(probe::view(a), probe::view(b)).metrics.max_ulp == 2);
  a = b;
  a[4] = -100.0f;
  CHECK(pa::compare_tensors(probe::view(a), probe::view(b)).metrics.max_ulp == 2 * 0x42c80000ull);

  std::vector<double> x = {1.0, -2.0}, y = {std::nextafter(1.0, 0.0), -2.0};
  const auto d = pa::compare_tensors(probe::view(x), probe::view(y));
  CHECK(d.metrics.max_ulp == 1);
  CHECK(d.metrics.tol.atol == 1e-8);
}

TEST_CASE("compare metrics: float16 against float32 is upcast, judged and measured in float16") {
  std::vector<float> ref(300);
  std::vector<probe::float16> half(300);
  for (size_t i = 0; i < ref.size(); ++i) {
    ref[i] = std::sin(0.1f * static_cast<float>(i)) * 3;
    half[i] = probe::to_float16(ref[i]);
  }
  half[5] = probe::to_float16(std::nextafter(probe::to_float(half[5]), 10.f) + 0.004f);  // a few f16 ulps off
  const auto c = pa::compare_tensors(probe::view(half), probe::view(ref));
  CHECK(c.metrics.tol.atol == 1e-2);
  CHECK(c.metrics.tol.rtol == 1e-2);
  CHECK(c.metrics.pass);
  CHECK(c.metrics.ulp_valid);
  CHECK(c.metrics.max_ulp >= 2);
  CHECK(c.metrics.max_ulp <= 6);
  std::vector<double> a(300), b(300);
  for (size_t i = 0; i < a.size(); ++i) {
    a[i] = probe::to_float(half[i]);
    b[i] = ref[i];
  }
  check_against(c.metrics, judge(a, b, {1e-2, 1e-2}, 1e-2), {300});

  std::vector<probe::bfloat16> bf(ref.size());
  for (size_t i = 0; i < ref.size(); ++i) bf[i] = probe::to_bfloat16(ref[i]);
  const auto d = pa::compare_tensors(probe::view(bf), probe::view(ref));
  CHECK(d.metrics.tol.rtol == 5e-2);
  CHECK(d.metrics.pass);
  CHECK(d.metrics.max_ulp <= 1);  // rounding to bfloat16 is within half an ulp
}

TEST_CASE("compare metrics: integers exactly, bool as XOR, complex per component, shapes and kinds") {
  std::vector<int32_t> a = {1, 2, 3, 1000000007}, b = {1, 2, 4, 1000000007};
  const auto c = pa::compare_tensors(probe::view(a), probe::view(b));
  CHECK(c.metrics.tol.atol == 0);
  CHECK(c.metrics.fail == 1);
  CHECK(c.metrics.first_fail == std::vector<int64_t>{2});
  CHECK_FALSE(c.metrics.ulp_valid);
  std::vector<int64_t> big_a = {(int64_t{1} << 52) + 1}, big_b = {(int64_t{1} << 52) + 3};
  CHECK(pa::compare_tensors(probe::view(big_a), probe::view(big_b)).metrics.max_abs == 2);  // exact below 2^53

  bool ba[] = {true, false, true}, bb[] = {true, true, true};
  const auto d = pa::compare_tensors(probe::view(ba, {3}), probe::view(bb, {3}));
  CHECK(d.metrics.fail == 1);
  CHECK(d.metrics.first_fail == std::vector<int64_t>{1});

  struct cf {
    float re, im;
    float real() const { return re; }
    float imag() const { return im; }
  };
  cf za[] = {{1, 2}, {3, 4}}, zb[] = {{1, 2}, {3, 4.5f}};
  const auto z = pa::compare_tensors(probe::view(za, {2}), probe::view(zb, {2}));
  CHECK(z.metrics.count == 4);
  CHECK(z.metrics.fail == 1);
  CHECK(z.metrics.first_fail == std::vector<int64_t>{1, 1});  // element 1, imaginary part

  float f[6] = {};
  CHECK(pa::compare_tensors(probe::view(f, {2, 3}), probe::view(f, {3, 2})).status == pa::pair_status::shape);
  CHECK(pa::compare_tensors(probe::view(f, {3}), probe::view(ba, {3})).status == pa::pair_status::dtype);
  CHECK(pa::compare_tensors(probe::view(za, {2}), probe::view(f, {2})).status == pa::pair_status::dtype);
  // strided views are gathered
  float grid[4][4];
  for (int i = 0; i < 16; ++i) grid[i / 4][i % 4] = static_cast<float>(i);
  float col[4] = {1, 5, 9, 13};
  CHECK(pa::compare_tensors(probe::view(&grid[0][1], {4}, {4}), probe::view(col, {4})).metrics.max_abs == 0);
  // 0-d
  float s1 = 1, s2 = 1.5f;
  const auto s = pa::compare_tensors(probe::view(&s1, probe::dims{}), probe::view(&s2, probe::dims{}));
  CHECK(s.metrics.count == 1);
  CHECK(s.metrics.first_fail.empty());
  CHECK(s.metrics.fail == 1);
}

TEST_CASE("compare metrics: cosine and SNR stay accurate near equality") {
  std::vector<double> b(10000), a(10000);
  for (size_t i = 0; i < b.size(); ++i) {
    b[i] = std::sin(0.01 * static_cast<double>(i)) + 0.5;
    a[i] = b[i] * (1 + 1e-9);  // a pure scale error: the direction is the same
  }
  const auto c = pa::compare_tensors(probe::view(a), probe::view(b));
  CHECK(1 - c.metrics.cosine < 1e-15);
  CHECK(c.metrics.snr_db == doctest::Approx(180).epsilon(1e-6));
  CHECK(std::isinf(pa::compare_tensors(probe::view(b), probe::view(b)).metrics.snr_db));
  std::vector<double> zero(4, 0.0);
  CHECK(pa::compare_tensors(probe::view(zero), probe::view(zero)).metrics.cosine == 1);
}

TEST_CASE("compare metrics: error quantiles from the histogram are within one bin") {
  std::mt19937 g(3);
  std::lognormal_distribution<double> ln(-12, 2);
  const size_t n = 200000;
  std::vector<double> b(n, 1.0), a(n);
  for (size_t i = 0; i < n; ++i) a[i] = 1.0 + (i % 10 == 0 ? 0.0 : ln(g));
  const auto c = pa::compare_tensors(probe::view(a), probe::view(b));
  std::vector<double> e(n);
  for (size_t i = 0; i < n; ++i) e[i] = std::fabs(a[i] - b[i]);
  std::sort(e.begin(), e.end());
  auto exact = [&](double q) {
    const double r = q * static_cast<double>(n - 1);
    const size_t lo = static_cast<size_t>(r);
    return e[lo] + (e[std::min(lo + 1, n - 1)] - e[lo]) * (r - static_cast<double>(lo));
  };
  CHECK(c.metrics.p50 == doctest::Approx(exact(0.5)).epsilon(0.032).scale(0));
  CHECK(c.metrics.p90 == doctest::Approx(exact(0.9)).epsilon(0.032).scale(0));
  CHECK(c.metrics.p99 == doctest::Approx(exact(0.99)).epsilon(0.032).scale(0));
  // exact zeros are exact
  std::vector<double> z(100, 0.0), w(100, 0.0);
  w[99] = 1;
  const auto q = pa::compare_tensors(probe::view(w), probe::view(z));
  CHECK(q.metrics.p50 == 0);
  CHECK(q.metrics.p90 == 0);
  CHECK(q.metrics.p99 == doctest::Approx(0.01).scale(0));  // numpy: 0.99 * 99 = rank 98.01
  CHECK(q.metrics.max_abs == 1);
  // sparse errors: the rank falls between order statistics in distant bins
  for (size_t m : {size_t{2}, size_t{3}, size_t{6}, size_t{11}, size_t{40}}) {
    std::vector<double> zs(m, 0.0), ws(m, 0.0);
    std::vector<double> es(m, 0.0);
    for (size_t i = 0; i < m; i += 3) es[i] = ws[i] = std::ldexp(1.0, -static_cast<int>(i));
    std::sort(es.begin(), es.end());
    const auto s = pa::compare_tensors(probe::view(ws), probe::view(zs));
    for (double qq : {0.5, 0.9, 0.99}) {
      const double r = qq * static_cast<double>(m - 1);
      const size_t k = static_cast<size_t>(r);
      const double want = es[k] + (es[std::min(k + 1, m - 1)] - es[k]) * (r - static_cast<double>(k));
      const double got = qq == 0.5 ? s.metrics.p50 : qq == 0.9 ? s.metrics.p90 : s.metrics.p99;
      INFO("n ", m, " q ", qq);
      if (want == 0) CHECK(got == 0);
      else CHECK(got == doctest::Approx(want).epsilon(0.032).scale(0));
    }
  }
  // the per-decade histogram holds every finite pair
  uint64_t total = 0;
  for (uint64_t k : c.metrics.hist.counts) total += k;
  CHECK(total == n);
  CHECK(c.metrics.hist.counts[0] == n / 10);
}

TEST_CASE("compare metrics: check modes max, mean and quantile (Polygraphy's: both statistics must exceed)") {
  std::vector<float> b(1000, 1.0f), a(1000, 1.0f);
  a[0] = 1.5f;  // one large error: elementwise and max fail, mean and the median pass
  pa::check_settings s;
  s.mode = pa::check_mode::max;
  CHECK_FALSE(pa::compare_tensors(probe::view(a), probe::view(b), {1e-3, 1e-3}, s).metrics.pass);
  CHECK(pa::compare_tensors(probe::view(a), probe::view(b), {1e-3, 0.6}, s).metrics.pass);  // rel 0.5 <= 0.6
  s.mode = pa::check_mode::mean;
  const auto mean = pa::compare_tensors(probe::view(a), probe::view(b), {1e-3, 1e-3}, s);
  CHECK(mean.metrics.pass);  // mean |a-b| = 5e-4
  CHECK(mean.metrics.check_abs == doctest::Approx(5e-4));
  CHECK(mean.metrics.fail == 1);  // still counted
  s.mode = pa::check_mode::quantile;
  s.quantile = 0.5;
  CHECK(pa::compare_tensors(probe::view(a), probe::view(b), {1e-6, 1e-6}, s).metrics.pass);
  s.quantile = 1.0;
  const auto top = pa::compare_tensors(probe::view(a), probe::view(b), {1e-3, 1e-3}, s);
  CHECK_FALSE(top.metrics.pass);
  CHECK(top.metrics.check_rel == doctest::Approx(0.5).epsilon(0.04));
  // NaN disagreements fail in every mode
  a[1] = std::numeric_limits<float>::quiet_NaN();
  s.mode = pa::check_mode::mean;
  CHECK_FALSE(pa::compare_tensors(probe::view(a), probe::view(b), {1, 1}, s).metrics.pass);
}

TEST_CASE("compare metrics: the AVX2, SSE2 and portable passes give the same answers") {
  namespace ci = pa::compare_impl;
  std::mt19937 g(5);
  std::normal_distribution<float> nd;
  const size_t n = 5000 + 3;  // blocks of 1024 and tails of every width
  std::vector<float> a(n), b(n);
  std::vector<probe::float16> h(n);
  for (size_t i = 0; i < n; ++i) {
    b[i] = nd(g);
    a[i] = i % 997 == 5 ? b[i] + 0.1f : b[i] * (1 + 2e-6f * nd(g));
    if (i % 333 == 0) b[i] = 0;
    if (i == 2100) a[i] = std::numeric_limits<float>::quiet_NaN();  // one block takes the slow path
    h[i] = probe::to_float16(a[i]);
  }
  std::vector<pa::tensor_comparison> runs;
  for (int level : {2, 1, 0}) {
    ci::simd_limit = level;
    runs.push_back(pa::compare_tensors(probe::view(a), probe::view(b)));
    runs.push_back(pa::compare_tensors(probe::view(h), probe::view(b)));
  }
  ci::simd_limit = 2;
  for (size_t k = 2; k < runs.size(); ++k) {
    const pa::tensor_metrics &x = runs[k].metrics, &y = runs[k % 2].metrics;
    INFO("run ", k);
    CHECK(x.fail == y.fail);
    CHECK(x.first_fail == y.first_fail);
    CHECK(x.worst_fail == y.worst_fail);
    CHECK(x.max_abs == y.max_abs);
    CHECK(x.max_rel == y.max_rel);
    CHECK(x.max_ulp == y.max_ulp);
    CHECK(x.min_rtol == y.min_rtol);
    CHECK(x.worst_ratio == y.worst_ratio);
    CHECK(x.rmse == doctest::Approx(y.rmse).epsilon(1e-12));
    CHECK(x.cosine == doctest::Approx(y.cosine).epsilon(1e-14));
    CHECK(x.mean_abs == doctest::Approx(y.mean_abs).epsilon(1e-6));
    CHECK(x.p99 == y.p99);
    CHECK(x.nan_mismatch == 1);
  }
}
