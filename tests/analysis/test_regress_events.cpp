// probe regress events in context: dips next to steps, steps next to failed runs, long dips,
// and the one line per event the text report gives, with its bisect command.
#include <doctest/doctest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "analysis/bisect_hint.hpp"
#include "analysis/regress_json.hpp"
#include "analysis/regress_plot.hpp"
#include "analysis/regress_report.hpp"
#include "analysis/regress_text.hpp"
#include "analysis/synthetic_series.hpp"

namespace pa = probe::analysis;

namespace {

// Runs labelled by `name(day)` (day from 1), levels {runs, value} with relative gaussian
// noise, and failed runs (0-based) where `failed` says.
template <class Name>
std::vector<pa::run_record> nightly(const std::vector<std::pair<size_t, double>>& pieces, double noise, uint64_t seed,
                                    Name name, const std::vector<size_t>& failed = {}) {
  pa::split_mix g(seed);
  std::vector<pa::run_record> out;
  for (const auto& p : pieces)
    for (size_t i = 0; i < p.first; ++i) {
      pa::run_record r;
      r.label = name(out.size() + 1);
      r.values.push_back(p.second * (1 + noise * g.normal()));
      out.push_back(r);
    }
  for (size_t f : failed) {
    out[f].values.clear();
    out[f].error = "RuntimeError: boom";
  }
  return out;
}

std::string day(size_t d) { return "day-" + std::to_string(d); }

pa::regress_report analyze(std::vector<pa::run_record> runs) {
  pa::regress_settings s;
  s.metric = "MLUPS";
  return pa::analyze_regressions(std::move(runs), s);
}

std::vector<std::string> event_lines(const std::string& text) {
  std::vector<std::string> lines;
  const size_t start = text.find("\nevents\n");
  if (start == std::string::npos) return lines;
  for (size_t at = start + 8; at < text.size();) {
    const size_t end = text.find('\n', at);
    const std::string line = text.substr(at, end - at);
    if (line.rfind("  ", 0) != 0) break;
    lines.push_back(line);
    at = end + 1;
  }
  return lines;
}

}  // namespace

TEST_CASE("events: a dip that comes back is a transient even when a step follows two runs later") {
  for (uint64_t seed = 1; seed <= 10; ++seed) {
    CAPTURE(seed);
    const auto r = analyze(nightly({{30, 500}, {3, 450}, {2, 500}, {30, 470}}, 0.0005, seed, day));
    REQUIRE(r.events.size() == 2);
    CHECK(r.events[0].kind == pa::event_kind::transient);
    CHECK(r.runs[r.events[0].first_changed].label == "day-31");
    CHECK(r.runs[r.events[0].back].label == "day-34");
    CHECK(r.events[1].kind == pa::event_kind::regression);
    CHECK(r.runs[r.events[1].last_good].label == "day-35");
    CHECK(r.runs[r.events[1].first_changed].label == "day-36");
  }
}

TEST_CASE("events: a series with no noise (bytes, cycles) still shows its dip and its wild run") {
  // Noise 0: the differences are all zero but for the way into and out of the dip.
  const auto dip = analyze(nightly({{10, 1000}, {2, 500}, {8, 1000}}, 0, 1, day));
  REQUIRE(dip.events.size() == 1);
  CHECK(dip.events[0].kind == pa::event_kind::transient);
  CHECK(dip.runs[dip.events[0].first_changed].label == "day-11");
  const auto spike = analyze(nightly({{10, 1000}, {1, 100}, {9, 1000}}, 0, 1, day));
  CHECK(spike.events.empty());
  REQUIRE(spike.outliers.size() == 1);
  const auto step = analyze(nightly({{10, 1000}, {10, 900}}, 0, 1, day));
  REQUIRE(step.events.size() == 1);
  CHECK(step.events[0].kind == pa::event_kind::regression);
}

TEST_CASE("events: a step right after a failed run is dated across the gap, both labels shown") {
  for (uint64_t seed = 1; seed <= 10; ++seed) {
    CAPTURE(seed);
    // run 31 (day-31) failed; the new level lasted two runs before the next step
    const auto r = analyze(nightly({{30, 500}, {3, 470}, {30, 440}}, 0.0005, seed, day, {30}));
    REQUIRE(r.events.size() == 2);
    CHECK(r.events[0].kind == pa::event_kind::regression);
    CHECK(r.runs[r.events[0].last_good].label == "day-30");
    CHECK(r.runs[r.events[0].first_changed].label == "day-32");
    CHECK(r.events[0].failed_between == 1);
    CHECK(r.runs[r.events[1].first_changed].label == "day-34");
    const std::vector<std::string> lines = event_lines(pa::regress_text(r));
    REQUIRE(lines.size() == 2);
    CHECK(lines[0].find("day-30 -> day-32 (1 failed between)") != std::string::npos);
  }
}

TEST_CASE("events: a dip longer than --max-transient-runs is a regression and its recovery, linked") {
  for (uint64_t seed = 1; seed <= 10; ++seed) {
    CAPTURE(seed);
    // -3.5% for 36 runs under 0.5% noise
    const auto r = analyze(nightly({{40, 500}, {36, 482.5}, {40, 500}}, 0.005, seed, day));
    REQUIRE(r.events.size() == 2);
    CHECK(r.events[0].kind == pa::event_kind::regression);
    CHECK(r.events[1].kind == pa::event_kind::improvement);
    CHECK(r.events[0].returned_by == 1);
    CHECK(r.events[1].returns == 0);
    CHECK(r.events[0].runs_away == 36);
    CHECK(r.regressions == 1);
    CHECK(r.transients == 0);
    const std::vector<std::string> lines = event_lines(pa::regress_text(r));
    REQUIRE(lines.size() == 2);
    CHECK(lines[0].find("back at day-77 after 36 runs (event 2)") != std::string::npos);
    CHECK(lines[1].find("2. recovery +3.") != std::string::npos);
    CHECK(lines[1].find("the return of event 1 after 36 runs") != std::string::npos);
    const std::string json = pa::regress_json(r);
    CHECK(json.find("\"returned_by\":2") != std::string::npos);
    CHECK(json.find("\"returns\":1") != std::string::npos);
  }
  // with --max-transient-runs 40 the same dip is one transient
  pa::regress_settings s;
  s.metric = "MLUPS";
  s.max_transient_runs = 40;
  const auto t = pa::analyze_regressions(nightly({{40, 500}, {36, 482.5}, {40, 500}}, 0.005, 1, day), s);
  REQUIRE(t.events.size() == 1);
  CHECK(t.events[0].kind == pa::event_kind::transient);
  CHECK(t.events[0].runs_away == 36);
}

TEST_CASE("events: one line each, with the runs on each side, the change in % and sd, and how to bisect") {
  auto dated = [](size_t d) { return "nightly-2024-03-" + std::string(d < 10 ? "0" : "") + std::to_string(d) + ".log"; };
  auto r = analyze(nightly({{12, 577}, {12, 520}}, 0.001, 5, dated));
  const std::vector<std::string> lines = event_lines(pa::regress_text(r));
  REQUIRE(lines.size() == 1);
  const std::string& line = lines[0];
  CHECK(line.find("1. regression -9.9% (") != std::string::npos);
  CHECK(line.find(" sd): nightly-2024-03-12.log -> nightly-2024-03-13.log; 577") != std::string::npos);
  CHECK(line.find("(12 runs) -> 520") != std::string::npos);
  CHECK(line.find("; bisect: git bisect start $(git rev-list -1 --before='2024-03-13 23:59:59' HEAD) "
                  "$(git rev-list -1 --before='2024-03-12 00:00:00' HEAD)") != std::string::npos);
  // labels with commits: the commits themselves
  auto commits = [](size_t d) {
    static const char* const hashes[] = {"1a2b3c4", "5d6e7f8", "9a0b1c2", "3d4e5f6"};
    return "bench-" + std::string(hashes[(d - 1) / 6]) + "-" + std::to_string(d);
  };
  r = analyze(nightly({{12, 577}, {12, 520}}, 0.001, 5, commits));
  CHECK(event_lines(pa::regress_text(r))[0].find("bisect: git bisect start 9a0b1c2 5d6e7f8") != std::string::npos);
  CHECK(pa::regress_json(r).find("\"bisect\":\"git bisect start 9a0b1c2 5d6e7f8\"") != std::string::npos);
  CHECK(pa::regress_html(r).find("<li>event 1: <code>git bisect start 9a0b1c2 5d6e7f8</code></li>") != std::string::npos);
  // labels that name no revision: no command
  r = analyze(nightly({{12, 577}, {12, 520}}, 0.001, 5, day));
  CHECK(event_lines(pa::regress_text(r))[0].find("bisect") == std::string::npos);
}

TEST_CASE("bisect hint: commits and dates in labels") {
  CHECK(pa::bisect_command("run-deadbeef1.log", "run-0badc0de.log") == "git bisect start deadbeef1 0badc0de");
  CHECK(pa::bisect_command("20240110-nightly", "20240109-nightly") ==
        "git bisect start $(git rev-list -1 --before='2024-01-10 23:59:59' HEAD) "
        "$(git rev-list -1 --before='2024-01-09 00:00:00' HEAD)");
  CHECK(pa::detail::date_in_label("x_2024-02-29_y") == "2024-02-29");
  CHECK(pa::detail::date_in_label("build-12345678") == "");      // not a plausible date
  CHECK(pa::detail::date_in_label("120240110") == "");           // part of a longer number
  CHECK(pa::detail::commit_in_label("build-1234567") == "");     // digits only: a number
  CHECK(pa::detail::commit_in_label("Deadbeef1") == "");         // upper case: a word
  CHECK(pa::bisect_command("day-5", "day-4") == "");
  CHECK(pa::bisect_command("2024-01-09", "2024-01-10") == "");   // out of order
  // a short hash without letters, beside a hash of its length
  CHECK(pa::bisect_command("21-30707315.log", "20-9f3c2a1e.log") == "git bisect start 30707315 9f3c2a1e");
  CHECK(pa::bisect_command("20-9f3c2a1e.log", "19-30707315.log") == "git bisect start 9f3c2a1e 30707315");
  CHECK(pa::bisect_command("run-30707315", "run-4") == "");       // no hash on either side
}

TEST_CASE("outliers: reported with their runs, left out of their level, in text and JSON") {
  auto runs = nightly({{30, 500}, {30, 470}}, 0.001, 3, day);
  runs[14].values[0] *= 0.6;
  const auto r = analyze(runs);
  REQUIRE(r.outliers.size() == 1);
  CHECK(r.runs[r.outliers[0].run].label == "day-15");
  CHECK(r.outliers[0].rel_change == doctest::Approx(-0.4).epsilon(0.05));
  REQUIRE(r.events.size() == 1);
  CHECK(r.events[0].before.sd < 0.002 * 500);
  const std::string text = pa::regress_text(r);
  CHECK(text.find("outliers (1): single runs far off their level") != std::string::npos);
  CHECK(text.find("day-15 ") != std::string::npos);
  CHECK(pa::regress_json(r).find("\"outliers\":[{\"label\":\"day-15\"") != std::string::npos);
}

TEST_CASE("events: two first runs on a faster machine do not hide the regression after them") {
  // a nightly LBM series: 2 runs faster, 5 runs, 8 runs 9% slower; a failed run first
  for (uint64_t seed = 1; seed <= 6; ++seed) {
    CAPTURE(seed);
    const pa::regress_report r = analyze(nightly({{1, 500}, {2, 600}, {5, 500}, {8, 455}}, 0.007, seed, day, {0}));
    const std::string text = pa::regress_text(r);
    CHECK(text.find("events: none") == std::string::npos);
    REQUIRE(r.events.size() == 1);
    CHECK(r.events[0].kind == pa::event_kind::regression);
    CHECK(r.events[0].last_good == 7);
    CHECK(r.events[0].first_changed == 8);
    CHECK(r.events[0].rel_change == doctest::Approx(-0.09).epsilon(0.15));
    CHECK(r.exit_code() == 1);
    // the two runs are listed as outliers and explained in a note
    REQUIRE(r.outliers.size() == 2);
    CHECK(r.outliers[0].run == 1);
    CHECK(r.outliers[1].run == 2);
    REQUIRE(r.notes.size() == 1);
    CHECK(r.notes[0].find("the first 2 runs (day-2 .. day-3) are +") != std::string::npos);
    CHECK(r.notes[0].find("set aside as outliers") != std::string::npos);
    // the mirror: the last 2 runs faster again are a possible change at the end
    const pa::regress_report m = analyze(nightly({{8, 500}, {5, 455}, {2, 550}}, 0.007, seed, day));
    REQUIRE(m.events.size() == 1);
    CHECK(m.events[0].first_changed == 8);
    REQUIRE(m.notes.size() == 1);
    CHECK(m.notes[0].find("possible improvement at the end: the last 2 runs (day-14 .. day-15)") != std::string::npos);
  }
}
