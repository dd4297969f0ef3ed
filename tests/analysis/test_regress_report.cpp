#include <doctest/doctest.h>

#include <cmath>
#include "analysis/regress_plot.hpp"
#include "analysis/regress_json.hpp"
#include "analysis/regress_report.hpp"
#include "analysis/regress_text.hpp"
#include "analysis/synthetic_series.hpp"
#include <string>
#include <vector>

namespace pa = probe::analysis;

namespace {

// Runs labelled day-1, day-2, ... with values scattered around each level (+-noise), and
// failed runs where `failed` says.
std::vector<pa::run_record> runs(const std::vector<std::pair<size_t, double>>& pieces, double noise,
                                 const std::vector<size_t>& failed = {}) {
  std::vector<pa::run_record> out;
  size_t day = 0;
  pa::split_mix g(17);
  for (const auto& p : pieces)
    for (size_t i = 0; i < p.first; ++i) {
      pa::run_record r;
      r.label = "day-" + std::to_string(++day);
      const double wiggle = g.uniform(-1, 1);  // deterministic, not a pattern the detector could model
      r.values.push_back(p.second * (1 + noise * wiggle));
      out.push_back(r);
    }
  for (size_t f : failed) {
    out[f].values.clear();
    out[f].error = "RuntimeError: boom";
  }
  return out;
}

pa::regress_report analyze(std::vector<pa::run_record> r, const std::string& metric = "MLUPS", int direction = 0) {
  pa::regress_settings s;
  s.metric = metric;
  s.direction = direction;
  return pa::analyze_regressions(std::move(r), s);
}

size_t count(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

}  // namespace

TEST_CASE("report: steps become regressions and improvements by direction") {
  const auto r = analyze(runs({{20, 500}, {20, 450}, {20, 480}}, 0.004));
  REQUIRE(r.events.size() == 2);
  CHECK(r.events[0].kind == pa::event_kind::regression);
  CHECK(r.runs[r.events[0].last_good].label == "day-20");
  CHECK(r.runs[r.events[0].first_changed].label == "day-21");
  CHECK(r.events[0].rel_change == doctest::Approx(-0.1).epsilon(0.02));
  CHECK(r.events[1].kind == pa::event_kind::improvement);
  CHECK(r.regressions == 1);
  CHECK(r.improvements == 1);
  CHECK(r.exit_code() == 1);

  // the same numbers as a time: lower is better, so the roles swap
  const auto t = analyze(runs({{20, 500}, {20, 450}, {20, 480}}, 0.004), "step_time_ms");
  CHECK_FALSE(t.direction.higher_is_better);
  CHECK(t.events[0].kind == pa::event_kind::improvement);
  CHECK(t.events[1].kind == pa::event_kind::regression);
  // an explicit flag wins over the name
  const auto h = analyze(runs({{20, 500}, {20, 450}}, 0.004), "step_time_ms", +1);
  CHECK(h.events[0].kind == pa::event_kind::regression);
}

TEST_CASE("report: a dip that comes back is one transient event with its span") {
  const auto r = analyze(runs({{30, 500}, {5, 430}, {30, 500}, {25, 460}}, 0.004));
  REQUIRE(r.events.size() == 2);
  const pa::regress_event& dip = r.events[0];
  CHECK(dip.kind == pa::event_kind::transient);
  CHECK(dip.worse);
  CHECK(r.runs[dip.last_good].label == "day-30");
  CHECK(r.runs[dip.first_changed].label == "day-31");
  CHECK(r.runs[dip.last_changed].label == "day-35");
  CHECK(r.runs[dip.back].label == "day-36");
  CHECK(dip.rel_change == doctest::Approx(-0.14).epsilon(0.03));
  CHECK(r.events[1].kind == pa::event_kind::regression);
  CHECK(r.transients == 1);
  CHECK(r.regressions == 1);
  // a transient alone does not fail the run
  const auto only = analyze(runs({{30, 500}, {5, 430}, {30, 500}}, 0.004));
  REQUIRE(only.events.size() == 1);
  CHECK(only.events[0].kind == pa::event_kind::transient);
  CHECK(only.exit_code() == 0);
  // a dip in two steps that comes back within 5 runs is still one transient
  const auto stairs = analyze(runs({{30, 500}, {2, 450}, {3, 400}, {30, 500}}, 0.003));
  REQUIRE(stairs.events.size() == 1);
  CHECK(stairs.events[0].kind == pa::event_kind::transient);
  CHECK(stairs.events[0].rel_change == doctest::Approx(-0.2).epsilon(0.03));
  CHECK(stairs.events[0].runs_away == 5);
  // the same two steps lasting 12 runs: two regressions, then the recovery of the first
  const auto long_stairs = analyze(runs({{30, 500}, {6, 450}, {6, 400}, {30, 500}}, 0.003));
  REQUIRE(long_stairs.events.size() == 3);
  CHECK(long_stairs.events[0].kind == pa::event_kind::regression);
  CHECK(long_stairs.events[1].kind == pa::event_kind::regression);
  CHECK(long_stairs.events[2].kind == pa::event_kind::improvement);
  CHECK(long_stairs.events[0].returned_by == 2);
  CHECK(long_stairs.events[2].returns == 0);
  CHECK(long_stairs.events[2].runs_away == 12);
  // a rise that comes back is a transient that was better
  const auto rise = analyze(runs({{30, 500}, {5, 560}, {30, 500}}, 0.004));
  REQUIRE(rise.events.size() == 1);
  CHECK_FALSE(rise.events[0].worse);
}

TEST_CASE("report: failed runs are gaps, skipped by change ranges, never filled") {
  // runs 20 and 21 (day-21, day-22) fail exactly at the change
  const auto r = analyze(runs({{20, 500}, {20, 450}}, 0.004, {20, 21, 5}));
  CHECK(r.failed == 3);
  CHECK(r.points.size() == 37);
  REQUIRE(r.events.size() == 1);
  CHECK(r.runs[r.events[0].last_good].label == "day-20");
  CHECK(r.runs[r.events[0].first_changed].label == "day-23");
  CHECK(r.events[0].failed_between == 2);
  CHECK(r.events[0].after.count() == 18);
  const std::string text = pa::regress_text(r);
  CHECK(text.find("failed runs (3)") != std::string::npos);
  CHECK(text.find("day-6 ") != std::string::npos);
  CHECK(text.find("RuntimeError: boom") != std::string::npos);
  CHECK(text.find("(2 failed between)") != std::string::npos);
}

TEST_CASE("report: flat and short series") {
  const auto flat = analyze(runs({{60, 500}}, 0.01));
  CHECK(flat.events.empty());
  CHECK(flat.exit_code() == 0);
  CHECK(pa::regress_text(flat).find("events: none") != std::string::npos);
  const auto shorty = analyze(runs({{2, 500}, {3, 400}}, 0.001));
  CHECK(shorty.events.empty());
  REQUIRE(shorty.notes.size() == 1);
  CHECK(shorty.notes[0].find("too few runs") != std::string::npos);
  const auto tail = analyze(runs({{40, 500}, {1, 400}}, 0.002));
  CHECK(tail.events.empty());
  REQUIRE(tail.notes.size() == 1);
  CHECK(tail.notes[0].find("possible regression at the end: the last run (day-41)") != std::string::npos);
}

TEST_CASE("report: JSON, SVG and HTML carry every event") {
  auto in = runs({{30, 500}, {5, 430}, {30, 500}, {25, 460}}, 0.004, {40});
  in[3].label = "odd <label> & \"quotes\" \xff";
  const auto r = analyze(in);
  REQUIRE(r.events.size() == 2);
  const std::string json = pa::regress_json(r);
  CHECK(count(json, "\"kind\":") == 2);
  CHECK(json.find("\"kind\":\"transient\"") != std::string::npos);
  CHECK(json.find("odd <label> & \\\"quotes\\\" \\ufffd") != std::string::npos);
  CHECK(json.find("\"exit_code\":1") != std::string::npos);
  const std::string svg = pa::regress_svg(r);
  CHECK(count(svg, "<g class=\"event ") == 2);
  CHECK(count(svg, "<g class=\"failed\">") == 1);
  CHECK(count(svg, "<circle class=\"point\"") == 89);
  CHECK(svg.find("odd &lt;label&gt; &amp; &quot;quotes&quot; \xef\xbf\xbd") != std::string::npos);
  CHECK(svg.find("\xff") == std::string::npos);
  const std::string html = pa::regress_html(r);
  CHECK(count(html, "<tr class=\"event-row ") == 2);
  CHECK(count(html, "http") == 1);  // the SVG namespace: nothing is fetched
}

TEST_CASE("direction: from the metric's name") {
  auto higher = [](const char* name) { return pa::choose_direction(name, 0).higher_is_better; };
  CHECK(higher("MLUPS"));
  CHECK(higher("throughput"));
  CHECK(higher("tokens_per_sec"));
  CHECK(higher("samples/s"));
  CHECK(higher("GFLOPS"));
  CHECK_FALSE(higher("time"));
  CHECK_FALSE(higher("step_time_ms"));
  CHECK_FALSE(higher("latency_p99"));
  CHECK_FALSE(higher("runtime"));
  CHECK_FALSE(higher("peakMemory"));
  CHECK_FALSE(higher("time/step"));
  CHECK(higher("items"));  // not "ms"
  CHECK(higher("whatever"));
  CHECK(pa::choose_direction("whatever", 0).reason.find("default") != std::string::npos);
  CHECK_FALSE(pa::choose_direction("MLUPS", -1).higher_is_better);
  // "X per Y": per a unit of time a rate; per anything else X decides
  CHECK(higher("tokens per second"));
  CHECK(higher("bytes_per_s"));
  CHECK(higher("cells per step"));
  CHECK_FALSE(higher("time_per_step"));
  CHECK_FALSE(higher("ms_per_iter"));
  CHECK_FALSE(higher("sec_per_iter"));
  CHECK_FALSE(higher("latency_per_token"));
  CHECK_FALSE(higher("loss_per_batch"));
  CHECK_FALSE(higher("Elapsed time per step"));
  // a rate of something bad
  CHECK_FALSE(higher("error rate"));
  CHECK_FALSE(higher("cache_miss_rate"));
  CHECK(higher("sample rate"));
}

TEST_CASE("direction: a --pattern's escapes and operators are not words of its name") {
  CHECK(pa::pattern_words("^parallel efficiency: (\\S+)").find('S') == std::string::npos);
  CHECK(pa::choose_direction(pa::pattern_words("^parallel efficiency: (\\S+)"), 0).higher_is_better);
  CHECK(pa::choose_direction(pa::pattern_words("efficiency: ([0-9.eE+-]+) s?"), 0).reason.find("'s'") != std::string::npos);
  CHECK_FALSE(pa::choose_direction(pa::pattern_words("^step time: (\\d+\\.\\d*) ms"), 0).higher_is_better);
  CHECK(pa::choose_direction(pa::pattern_words("^MLUPS: (\\S+)"), 0).higher_is_better);
  CHECK(pa::pattern_words("a[\\]s]{2,3}b") == "a b");
}

TEST_CASE("json: escaping and numbers") {
  pa::json_text j;
  j.begin_object().member("s", std::string("a\"b\\c\n\x01 \xc3\xa9 \xc0\xaf")).member("x", 0.1).member("big", 1e300);
  j.member("inf", std::numeric_limits<double>::infinity()).key("list").begin_array().value(1.5).null().end_array();
  j.end_object();
  CHECK(j.str() ==
        "{\"s\":\"a\\\"b\\\\c\\n\\u0001 \xc3\xa9 \\ufffd\\ufffd\",\"x\":0.1,\"big\":1e+300,\"inf\":null,"
        "\"list\":[1.5,null]}");
  CHECK(pa::json_number(1.0 / 3) == "0.33333333333333331");
}

TEST_CASE("report: on a log scale, levels, changes and outliers are in the metric's units") {
  // 7.4, 3.0 and 1.2 MLUPS at 1% each, and one throttled run at the first level
  auto in = runs({{8, 7.4}, {8, 3.0}, {8, 1.2}}, 0.01);
  in[4].values = {5.0};
  const auto r = analyze(in);
  REQUIRE(r.seg.log_scale);
  REQUIRE(r.events.size() == 2);
  REQUIRE(r.outliers.size() == 1);
  // each level's mean and sd are those of its runs' values, the outlier left out
  for (const auto& l : r.seg.levels) {
    std::vector<double> own;
    for (size_t p = l.begin; p < l.end; ++p)
      if (p != 4) own.push_back(r.points[p]);
    const pa::moments m = pa::moments_of(own);
    CHECK(l.mean == doctest::Approx(m.mean).epsilon(1e-12));
    CHECK(l.sd == doctest::Approx(m.sd()).epsilon(1e-9));
    CHECK(l.search_mean == doctest::Approx(std::log(m.mean)).epsilon(1e-3));
  }
  const auto& lv = r.seg.levels;
  CHECK(r.events[0].rel_change == doctest::Approx(lv[1].mean / lv[0].mean - 1).epsilon(1e-12));
  CHECK(r.events[1].rel_change == doctest::Approx(lv[2].mean / lv[1].mean - 1).epsilon(1e-12));
  // sd counts on the search's scale, where the noise is a share of the value
  CHECK(r.seg.noise > 0.003);
  CHECK(r.seg.noise < 0.02);
  CHECK(r.events[0].sigmas == doctest::Approx(std::log(lv[1].mean / lv[0].mean) / r.seg.noise).epsilon(1e-3));
  CHECK(r.outliers[0].level == lv[0].mean);
  CHECK(r.outliers[0].rel_change == doctest::Approx(5.0 / lv[0].mean - 1).epsilon(1e-12));
  CHECK(r.outliers[0].sigmas == doctest::Approx(std::log(5.0 / lv[0].mean) / r.seg.noise).epsilon(1e-3));
  const std::string text = pa::regress_text(r);
  CHECK(text.find("% of the value (log scale) = 1 sd") != std::string::npos);
  // the mean of the first level is over 7 runs; the eighth is the outlier
  CHECK(text.find(" (7 runs + 1 outlier) -> ") != std::string::npos);
  const std::string html = pa::regress_html(r);
  CHECK(html.find("% of the value (log scale) = 1 sd.</p>") != std::string::npos);
  CHECK(html.find("(7 runs + 1 outlier)</td>") != std::string::npos);
  CHECK(html.find("<td class=\"n\">" + pa::format_sigmas(r.events[0].sigmas) + "</td>") != std::string::npos);
  const std::string json = pa::regress_json(r);
  CHECK(json.find("\"scale\":\"log\"") != std::string::npos);
  CHECK(json.find("\"scale\":\"auto\"") != std::string::npos);  // the option, as --scale spells it
  CHECK(json.find("\"relative_noise\":") != std::string::npos);

  // the same runs on a linear scale: the noise in MLUPS
  pa::regress_settings s;
  s.metric = "MLUPS";
  s.changepoints.scale = pa::value_scale::linear;
  const auto lin = pa::analyze_regressions(in, s);
  CHECK_FALSE(lin.seg.log_scale);
  CHECK(pa::regress_text(lin).find("% of the mean) (linear scale) = 1 sd") != std::string::npos);
  CHECK(pa::regress_json(lin).find("\"scale\":\"linear\"") != std::string::npos);

  // a log scale asked for, and a run at zero: a note, and the values as they are
  s.changepoints.scale = pa::value_scale::log;
  in[10].values = {0.0};
  const auto zero = pa::analyze_regressions(in, s);
  CHECK_FALSE(zero.seg.log_scale);
  REQUIRE_FALSE(zero.notes.empty());
  CHECK(zero.notes[0] == "--scale log: run day-11 has 0.0, which has no logarithm; the search ran on the values");
}
