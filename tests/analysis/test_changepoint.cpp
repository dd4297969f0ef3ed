#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include "analysis/changepoint.hpp"
#include <vector>

namespace pa = probe::analysis;

namespace {

// A small deterministic generator (splitmix64 + Box-Muller), so that the series are the same
// on every platform and standard library.
class rng {
 public:
  explicit rng(uint64_t seed) : s_(seed) {}
  uint64_t next() {
    uint64_t z = (s_ += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }
  double uniform() { return (static_cast<double>(next() >> 11) + 0.5) / 9007199254740992.0; }
  double normal() {
    const double u = uniform(), v = uniform();
    return std::sqrt(-2 * std::log(u)) * std::cos(6.283185307179586 * v);
  }

 private:
  uint64_t s_;
};

// Piecewise-constant levels {length, level} with relative gaussian noise.
std::vector<double> series(const std::vector<std::pair<size_t, double>>& pieces, double rel_noise, uint64_t seed) {
  rng g(seed);
  std::vector<double> x;
  for (const auto& p : pieces)
    for (size_t i = 0; i < p.first; ++i) x.push_back(p.second * (1 + rel_noise * g.normal()));
  return x;
}

std::vector<size_t> indices(const pa::segmentation& s) {
  std::vector<size_t> out;
  for (const auto& c : s.changes) out.push_back(c.index);
  return out;
}

}  // namespace

TEST_CASE("energy: incremental pair sums equal the direct O(n^2) sums") {
  rng g(7);
  std::vector<double> x(257);
  for (double& v : x) v = std::round(g.normal() * 4) / 2;  // many ties
  std::vector<long double> fl, fr, ql, qr;
  pa::detail::pair_sums_incremental(x, 13, 250, &fl, &fr);
  pa::detail::pair_sums_quadratic(x, 13, 250, &ql, &qr);
  REQUIRE(fl.size() == ql.size());
  for (size_t k = 0; k < fl.size(); ++k) {
    CHECK(static_cast<double>(fl[k]) == doctest::Approx(static_cast<double>(ql[k])).epsilon(1e-12));
    CHECK(static_cast<double>(fr[k]) == doctest::Approx(static_cast<double>(qr[k])).epsilon(1e-12));
  }
  const std::vector<double> step = series({{60, 100}, {40, 90}}, 0.01, 3);
  CHECK(pa::detail::best_energy_split(step, 0, step.size(), 3) == 60);
  CHECK(pa::detail::best_energy_split(step, 0, step.size(), 3, true) == 60);
}

TEST_CASE("changepoints: several steps are all found, at the right runs") {
  for (uint64_t seed = 1; seed <= 5; ++seed) {
    const auto x = series({{40, 577}, {30, 520}, {35, 560}, {25, 500}}, 0.005, seed);
    const pa::segmentation s = pa::find_change_points(x);
    CHECK(indices(s) == std::vector<size_t>{40, 70, 105});
    REQUIRE(s.levels.size() == 4);
    CHECK(s.levels[0].mean == doctest::Approx(577).epsilon(0.01));
    CHECK(s.levels[3].count() == 25);
    REQUIRE(s.changes.size() == 3);
    CHECK(s.changes[0].rel_change == doctest::Approx(-57.0 / 577).epsilon(0.05));
    CHECK(s.changes[0].p_value < 1e-10);
    CHECK(s.changes[0].before.count() == 40);
    CHECK(s.changes[0].after.count() == 30);
  }
}

TEST_CASE("changepoints: a short dip is found as two changes with the dip between") {
  const auto x = series({{50, 100}, {4, 85}, {50, 100}}, 0.01, 11);
  const pa::segmentation s = pa::find_change_points(x);
  CHECK(indices(s) == std::vector<size_t>{50, 54});
}

TEST_CASE("changepoints: a long small shift no window can see is found by the global search") {
  const auto x = series({{2000, 100}, {2000, 101.5}}, 0.03, 5);  // 1.5% shift under 3% noise
  const pa::segmentation s = pa::find_change_points(x);
  REQUIRE(s.changes.size() == 1);
  CHECK(std::abs(static_cast<long>(s.changes[0].index) - 2000) < 60);
}

TEST_CASE("changepoints: flat series give no change, whatever the noise and the length") {
  size_t false_changes = 0;
  for (size_t n : {6, 7, 10, 20, 50, 200, 1000, 5000})
    for (double noise : {0.0005, 0.01, 0.05, 0.3})
      for (uint64_t seed = 1; seed <= 6; ++seed) {
        const auto x = series({{n, 250}}, noise, seed * 1000 + n);
        false_changes += pa::find_change_points(x).changes.size();
      }
  CHECK(false_changes == 0);
}

TEST_CASE("changepoints: single spikes and isolated outliers are not changes") {
  for (uint64_t seed = 1; seed <= 10; ++seed) {
    auto x = series({{120, 100}}, 0.01, seed);
    x[30] *= 1.5;   // one huge spike
    x[31] *= 0.97;  // and a smaller dip next to it
    x[80] *= 0.6;
    x[119] *= 1.3;  // the last point: a note at most
    const pa::segmentation s = pa::find_change_points(x);
    CHECK(s.changes.empty());
  }
  // a constant series with one spike
  std::vector<double> c(40, 10.0);
  c[20] = 50;
  CHECK(pa::find_change_points(c).changes.empty());
}

TEST_CASE("changepoints: noise levels: a 5% step is found under 0.1%..1% noise, not at 1% min-change") {
  for (double noise : {0.001, 0.003, 0.01}) {
    const auto x = series({{30, 200}, {30, 190}}, noise, 3);
    CHECK(indices(pa::find_change_points(x)) == std::vector<size_t>{30});
  }
  // a significant change smaller than --min-change is dropped by the merge pass
  const auto small = series({{200, 200}, {200, 199}}, 0.0005, 4);  // -0.5%, very significant
  CHECK(pa::find_change_points(small).changes.empty());
  pa::changepoint_options opt;
  opt.min_change = 0.001;
  CHECK(indices(pa::find_change_points(small, opt)) == std::vector<size_t>{200});
}

TEST_CASE("changepoints: very short series") {
  // fewer than 2 * min_points: nothing can be concluded, and it says so
  const pa::segmentation tiny = pa::find_change_points({100, 101, 60, 61, 60});
  CHECK_FALSE(tiny.enough_points);
  CHECK(tiny.changes.empty());
  REQUIRE(tiny.levels.size() == 1);
  CHECK(pa::find_change_points({}).levels.empty());
  // six points and an unmistakable step: found
  const pa::segmentation six = pa::find_change_points({100, 100.5, 99.7, 80, 80.3, 79.9});
  CHECK(six.enough_points);
  CHECK(indices(six) == std::vector<size_t>{3});
}

TEST_CASE("changepoints: a move in the last few points is a suspect, not a change") {
  auto x = series({{60, 100}, {2, 80}}, 0.005, 9);
  const pa::segmentation s = pa::find_change_points(x);
  CHECK(s.changes.empty());
  CHECK(s.tail.present);
  CHECK(s.tail.begin == 60);
  CHECK(s.tail.rel_change == doctest::Approx(-0.2).epsilon(0.05));
  const pa::segmentation flat = pa::find_change_points(series({{62, 100}}, 0.005, 9));
  CHECK_FALSE(flat.tail.present);
}

TEST_CASE("changepoints: deterministic") {
  const auto x = series({{300, 50}, {7, 40}, {500, 50}, {400, 47}, {100, 52}}, 0.03, 21);
  const pa::segmentation a = pa::find_change_points(x), b = pa::find_change_points(x);
  REQUIRE(a.changes.size() == b.changes.size());
  for (size_t i = 0; i < a.changes.size(); ++i) {
    CHECK(a.changes[i].index == b.changes[i].index);
    CHECK(a.changes[i].p_value == b.changes[i].p_value);
  }
  const std::vector<size_t> planted{300, 307, 807, 1207};
  REQUIRE(a.changes.size() == planted.size());
  for (size_t i = 0; i < planted.size(); ++i) CHECK(std::labs(static_cast<long>(a.changes[i].index - planted[i])) <= 2);
}

TEST_CASE("stats: Student's t and Welch against known values") {
  // t = 2.228 with 10 df is the two-sided 5% point; 1.96 is the normal one
  CHECK(pa::student_t_two_sided(2.228138852, 10) == doctest::Approx(0.05).epsilon(1e-6));
  CHECK(pa::student_t_two_sided(1.959963985, 1e9) == doctest::Approx(0.05).epsilon(1e-6));
  CHECK(pa::student_t_two_sided(0, 5) == doctest::Approx(1));
  CHECK(pa::student_t_two_sided(63.65674, 1) == doctest::Approx(0.01).epsilon(1e-5));
  pa::moments a, b;
  a.n = 10;
  a.mean = 5;
  a.var = 1;
  b.n = 12;
  b.mean = 6;
  b.var = 4;
  const pa::t_test t = pa::welch_t_test(a, b);
  // t = -1 / sqrt(1/10 + 4/12); df = 0.4333^2 / (0.1^2/9 + 0.3333^2/11)
  CHECK(t.t == doctest::Approx(-1.5191091).epsilon(1e-6));
  CHECK(t.df == doctest::Approx(16.74775).epsilon(1e-5));
  // noise estimate from differences ignores a level shift
  auto x = series({{500, 100}, {500, 130}}, 0.01, 2);
  CHECK(pa::noise_from_differences(x) == doctest::Approx(1.0).epsilon(0.1));
}
