#include <doctest/doctest.h>

#include "analysis/bisect.hpp"
#include <string>
#include <vector>

namespace pa = probe::analysis;

namespace {

pa::bisect_boundary boundary(pa::bisect_settings s) {
  pa::bisect_boundary b;
  std::string error;
  REQUIRE(pa::bisect_boundary_of(s, &b, &error));
  CHECK(error.empty());
  return b;
}

std::string boundary_error(pa::bisect_settings s) {
  pa::bisect_boundary b;
  std::string error;
  CHECK_FALSE(pa::bisect_boundary_of(s, &b, &error));
  return error;
}

}  // namespace

TEST_CASE("bisect: the boundary from good and bad values, or a threshold") {
  pa::bisect_settings s;
  s.has_good = s.has_bad = true;
  s.good_value = 577;
  s.bad_value = 520;
  pa::bisect_boundary b = boundary(s);
  CHECK(b.value == 548.5);
  CHECK(b.higher_is_better);
  s.good_value = 2.0;  // a time: good is smaller
  s.bad_value = 3.0;
  b = boundary(s);
  CHECK_FALSE(b.higher_is_better);
  s.direction = +1;
  CHECK(boundary_error(s).find("contradicts --higher-is-better") != std::string::npos);
  s.direction = 0;
  s.bad_value = 2.0;
  CHECK(boundary_error(s).find("equal") != std::string::npos);

  pa::bisect_settings t;
  t.has_threshold = true;
  t.threshold = 0.1;
  CHECK(boundary_error(t).find("needs a baseline") != std::string::npos);
  t.has_good = true;
  t.good_value = 500;
  t.metric_name = "MLUPS";
  CHECK(boundary(t).value == doctest::Approx(450));
  t.metric_name = "latency_ms";
  CHECK(boundary(t).value == doctest::Approx(550));
  t.has_baseline = true;
  t.baseline = 1000;
  CHECK(boundary(t).value == doctest::Approx(1100));
  t.has_bad = true;
  CHECK(boundary_error(t).find("not both") != std::string::npos);
  CHECK(boundary_error(pa::bisect_settings{}).find("say what good and bad are") != std::string::npos);
}

TEST_CASE("bisect: decisions with a t-test, and more runs while unclear") {
  pa::bisect_boundary b;
  b.value = 548.5;
  b.higher_is_better = true;
  const double alpha = 0.01;
  auto verdict = [&](std::vector<double> v, bool last = false) { return pa::bisect_decide(v, b, alpha, last).verdict; };
  CHECK(verdict({577.1, 576.3, 578.0}) == pa::bisect_verdict::good);
  CHECK(verdict({520.2, 519.0, 521.7}) == pa::bisect_verdict::bad);
  CHECK(verdict({550, 546, 552}) == pa::bisect_verdict::unclear);             // straddles the boundary
  CHECK(verdict({560, 540, 575}) == pa::bisect_verdict::unclear);             // too noisy for 3 runs
  CHECK(verdict({560, 540, 575, 570, 565, 568, 572, 566}) == pa::bisect_verdict::good);  // more runs settle it
  CHECK(verdict({}) == pa::bisect_verdict::unclear);
  CHECK(verdict({548.5, 548.5}) == pa::bisect_verdict::unclear);              // exactly on the boundary
  CHECK(verdict({600, 600}) == pa::bisect_verdict::good);                     // identical values
  // one sample: no test; only when no more runs will come, its side decides
  CHECK(verdict({600}) == pa::bisect_verdict::unclear);
  CHECK(verdict({600}, true) == pa::bisect_verdict::good);
  CHECK(verdict({500}, true) == pa::bisect_verdict::bad);
  const pa::bisect_decision d = pa::bisect_decide({577.1, 576.3, 578.0}, b, alpha, false);
  CHECK(d.p < 1e-3);
  CHECK(d.m.mean == doctest::Approx(577.133).epsilon(1e-4));
  CHECK(d.reason.find("good side") != std::string::npos);
  // lower is better
  b.higher_is_better = false;
  CHECK(verdict({520.2, 519.0, 521.7}) == pa::bisect_verdict::good);
  CHECK(pa::bisect_exit_code(pa::bisect_verdict::good) == 0);
  CHECK(pa::bisect_exit_code(pa::bisect_verdict::bad) == 1);
  CHECK(pa::bisect_exit_code(pa::bisect_verdict::unclear) == 125);
}

TEST_CASE("bisect: crash mode verdicts never need an exit code above 127") {
  pa::process_outcome o;
  CHECK(pa::crash_verdict(o) == pa::bisect_verdict::unclear);  // not started: skip
  o.started = true;
  o.exited = true;
  CHECK(pa::crash_verdict(o) == pa::bisect_verdict::good);
  o.exit_code = 3;
  CHECK(pa::crash_verdict(o) == pa::bisect_verdict::bad);
  CHECK(o.describe() == "exit code 3");
  o.exited = false;
  o.signal = 11;
  CHECK(pa::crash_verdict(o) == pa::bisect_verdict::bad);
  CHECK(o.describe() == "killed by signal 11 (SIGSEGV)");
  o.signal = 6;
  CHECK(o.describe() == "killed by signal 6 (SIGABRT)");
  o.timed_out = true;
  o.seconds = 2;
  CHECK(pa::crash_verdict(o) == pa::bisect_verdict::bad);
  CHECK(o.describe() == "timed out after 2 s (killed)");
  for (auto v : {pa::bisect_verdict::good, pa::bisect_verdict::bad, pa::bisect_verdict::unclear})
    CHECK(pa::bisect_exit_code(v) <= 127);
}
