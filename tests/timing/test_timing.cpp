// Timing in one process: scopes, threads, timers, ops, metrics, the summary, the clock.
#include <doctest/doctest.h>
#include <probe/probe.hpp>
#include <probe/util/metric_line.h>
#include <stdio.h>
#include <time.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "../support/capture.hpp"

namespace {

uint64_t count_of(const char* name, char kind = 's') {
  uint64_t n = 0;
  double total = 0;
  return probe::detail::timing_lookup(name, kind, &n, &total) ? n : 0;
}
double total_ns_of(const char* name, char kind = 's') {
  uint64_t n = 0;
  double total = 0;
  probe::detail::timing_lookup(name, kind, &n, &total);
  return total;
}

void sleep_ms(int ms) {
  timespec ts{ms / 1000, (ms % 1000) * 1000000L};
  nanosleep(&ts, nullptr);
}

std::string summary_text() {
  char* buf = nullptr;
  size_t len = 0;
  FILE* f = open_memstream(&buf, &len);
  probe::write_timing_summary(f);
  fclose(f);
  std::string s(buf, len);
  free(buf);
  return s;
}

void level3() { PROBE_SCOPE("t_level3"); }
void level2() {
  PROBE_SCOPE("t_level2");
  level3();
  level3();
}
void level1() {
  PROBE_SCOPE("t_level1");
  for (int i = 0; i < 3; ++i) level2();
}

}  // namespace

TEST_CASE("timing: scopes count nothing while timing is off") {
  probe::set_flags("");
  probe::detail::timing_reset();
  for (int i = 0; i < 10; ++i) level1();
  CHECK(count_of("t_level1") == 0);
  CHECK(count_of("t_level3") == 0);
}

TEST_CASE("timing: nested scopes give exact counts and totals that nest") {
  probe::set_flags("--probe_timing");
  probe::detail::timing_reset();
  for (int i = 0; i < 10; ++i) level1();
  CHECK(count_of("t_level1") == 10);
  CHECK(count_of("t_level2") == 30);
  CHECK(count_of("t_level3") == 60);
  CHECK(total_ns_of("t_level1") >= total_ns_of("t_level2"));
  CHECK(total_ns_of("t_level2") >= total_ns_of("t_level3"));
  probe::set_flags("");
}

TEST_CASE("timing: events of many threads, exited or not, are all counted") {
  probe::set_flags("--probe_timing");
  probe::detail::timing_reset();
  const int threads = 8, per_thread = 3000;  // several chunks per thread
  std::vector<std::thread> ts;
  for (int t = 0; t < threads; ++t)
    ts.emplace_back([] {
      for (int i = 0; i < per_thread; ++i) {
        PROBE_SCOPE("t_worker");
        level3();
      }
    });
  for (auto& t : ts) t.join();  // every thread has exited before the count
  CHECK(count_of("t_worker") == static_cast<uint64_t>(threads * per_thread));
  CHECK(count_of("t_level3") == static_cast<uint64_t>(threads * per_thread));
  // More events from those threads' successors, and from this thread.
  std::thread([] { level1(); }).join();
  level1();
  CHECK(count_of("t_level1") == 2);
  probe::set_flags("");
}

TEST_CASE("timing: a scope measures the time it encloses") {
  probe::set_flags("--probe_timing");
  probe::detail::timing_reset();
  {
    PROBE_SCOPE("t_sleep");
    sleep_ms(20);
  }
  const double ns = total_ns_of("t_sleep");
  CHECK(ns >= 19e6);
  CHECK(ns < 2e9);
  probe::set_flags("");
}

TEST_CASE("timing: the clock's scale agrees with CLOCK_MONOTONIC") {
  probe::set_flags("--probe_timing");
  const uint64_t t0 = probe::detail::clock_now();
  const int64_t m0 = probe::detail::monotonic_ns();
  sleep_ms(50);
  const uint64_t t1 = probe::detail::clock_now();
  const int64_t m1 = probe::detail::monotonic_ns();
  const double ticks_ns = probe::detail::ticks_to_ns(static_cast<double>(t1 - t0));
  CHECK(std::fabs(ticks_ns - static_cast<double>(m1 - m0)) < 0.01 * static_cast<double>(m1 - m0));
  // Readings convert to the monotonic time base.
  const int64_t now = probe::detail::ticks_to_monotonic_ns(probe::detail::clock_now());
  CHECK(std::llabs(now - probe::detail::monotonic_ns()) < 1000000);
  INFO("clock: " << probe::detail::clock_name());
  CHECK(std::strcmp(probe::detail::clock_name(), "unset") != 0);
  probe::set_flags("");
}

TEST_CASE("timing: probe::timer measures always and records when named and timing is on") {
  probe::set_flags("");
  probe::detail::timing_reset();
  probe::timer plain;
  sleep_ms(5);
  CHECK(plain.elapsed() >= 0.004);  // works with timing off
  plain.stop();
  const double stopped = plain.elapsed();
  sleep_ms(2);
  CHECK(plain.elapsed() == stopped);  // stopped: no longer grows
  plain.start();
  sleep_ms(2);
  plain.stop();
  CHECK(plain.elapsed() >= stopped + 0.0015);  // intervals add up
  plain.reset();
  CHECK(plain.elapsed() == 0);
  CHECK_FALSE(plain.running());

  probe::set_flags("--probe_timing");
  {
    probe::timer named("t_named_timer");
    for (int i = 0; i < 3; ++i) {
      named.start();
      named.stop();
    }
    named.start();  // still running at scope end: recorded by the destructor
  }
  CHECK(count_of("t_named_timer") == 4);
  probe::set_flags("");
}

TEST_CASE("timing: every probe::op is timed, with its own summary row") {
  probe::set_flags("--probe_timing");
  probe::detail::timing_reset();
  float x[4] = {1, 2, 3, 4};
  for (int i = 0; i < 5; ++i) {
    probe::op op("t_conv", "Conv");
    op.input("x", probe::view(x, {2, 2}));
    PROBE_SCOPE("t_inside_op");
    op.output("y", probe::view(x, 4));
  }
  CHECK(count_of("t_conv", 'o') == 5);
  CHECK(count_of("t_inside_op") == 5);
  CHECK(count_of("t_conv", 's') == 0);  // ops and scopes are different rows
  CHECK(total_ns_of("t_conv", 'o') >= total_ns_of("t_inside_op"));
  probe::set_flags("");
}

TEST_CASE("timing: metric prints exactly '<name>: <value>' whether timing is on or not") {
  for (const char* flags : {"", "--probe_timing"}) {
    probe::set_flags(flags);
    probe_test::capture_fd out(1);
    probe::metric("MLUPS", 577.3);
    probe::metric("time to solution (s)", 0.1);
    probe::metric("débit µ", 1e20);
    probe::metric(std::string("big"), 123456789.0);
    probe::metric("tiny", -2.5e-300);
    probe::metric("third", 1.0 / 3.0);
    probe::metric("bad\nname", 1);
    for (double v : {20.0, 100.0, -510.0, 150000.0, 1e15, 1e16, 1.5e-5})
      probe::metric("round", v);
    CHECK(out.stop() ==
          "MLUPS: 577.3\n"
          "time to solution (s): 0.1\n"
          "débit µ: 1e+20\n"
          "big: 123456789\n"
          "tiny: -2.5e-300\n"
          "third: 0.3333333333333333\n"
          "bad?name: 1\n"
          "round: 20\nround: 100\nround: -510\nround: 150000\nround: 1000000000000000\nround: 1e+16\n"
          "round: 1.5e-05\n");
  }
  probe::set_flags("");
}

TEST_CASE("timing: the C metric line of PROBE_DISABLE builds keeps the name's text bytes, marks control bytes, cuts at 400") {
  probe_test::capture_fd out(1);
  probe_metric_line("d\xc3\xa9""bit \xc2\xb5", 1e20);
  probe_metric_line("bad\nname\x7f\x1f", 1);
  const std::string long_name(1000, 'n');
  probe_metric_line(long_name.c_str(), 2);
  CHECK(out.stop() == "d\xc3\xa9""bit \xc2\xb5: 1e+20\nbad?name??: 1\n" + std::string(400, 'n') + ": 2\n");
}

TEST_CASE("timing: round-trip double text is the shortest that reads back") {
  char buf[40];
  std::mt19937_64 rng(7);
  for (int i = 0; i < 20000; ++i) {
    uint64_t bits = rng();
    double v;
    std::memcpy(&v, &bits, sizeof v);
    if (!std::isfinite(v)) continue;
    probe::detail::write_compact(buf, v);
    REQUIRE(std::strtod(buf, nullptr) == v);
    // The C line of PROBE_DISABLE builds is the same text.
    {
      probe_test::capture_fd out(1);
      probe_metric_line("v", v);
      REQUIRE(out.stop() == "v: " + std::string(buf) + "\n");
    }
    // One significant digit fewer would not read back.
    int digits = 0;  // significant: from the first nonzero digit
    for (const char* p = buf; *p && *p != 'e'; ++p) digits += (*p >= '1' && *p <= '9') || (*p == '0' && digits);
    char shorter[400];
    std::snprintf(shorter, sizeof shorter, "%.*g", digits - 1 > 0 ? digits - 1 : 1, v);
    // (Below 1e16 every integer digit is written: 100, not 1e+02.)
    const double mag = std::fabs(v);
    const int integer_digits = mag >= 1 && mag < 1e16 ? static_cast<int>(std::floor(std::log10(mag))) + 1 : 0;
    if (digits > 1 && digits > integer_digits) CHECK(std::strtod(shorter, nullptr) != v);
    // And it is what printf writes at that precision.
    char same[400];
    std::snprintf(same, sizeof same, "%.*g", digits > 0 ? digits : 1, v);
    CHECK(std::string(buf) == same);
  }
  probe::detail::write_compact(buf, -0.0);
  CHECK(std::string(buf) == "-0");
  probe::detail::write_compact(buf, NAN);
  CHECK(std::string(buf) == "nan");
  probe::detail::write_compact(buf, -INFINITY);
  CHECK(std::string(buf) == "-inf");
}

TEST_CASE("timing: metrics are recorded in the summary while timing is on") {
  probe::set_flags("--probe_timing");
  probe::detail::timing_reset();
  {
    probe_test::capture_fd out(1);
    probe::metric("t_rate", 2);
    probe::metric("t_rate", 4);
  }
  const std::string s = summary_text();
  INFO(s);
  std::string row;
  for (size_t at = 0, next; at < s.size(); at = next + 1) {
    next = s.find('\n', at);
    std::string line = s.substr(at, next - at);
    if (line.find("t_rate") != std::string::npos) row = line;
  }
  // count 2, last 4, mean 3, min 2, max 4
  char name[32];
  double count = 0, last = 0, mean = 0, mn = 0, mx = 0;
  REQUIRE(std::sscanf(row.c_str(), "%31s %lf %lf %lf %lf %lf", name, &count, &last, &mean, &mn, &mx) == 6);
  CHECK(count == 2);
  CHECK(last == 4);
  CHECK(mean == 3);
  CHECK(mn == 2);
  CHECK(mx == 4);
  probe::set_flags("");
}

TEST_CASE("timing: the metric table's columns hold values of every length") {
  probe::set_flags("--probe_timing");
  probe::detail::timing_reset();
  {
    probe_test::capture_fd out(1);
    probe::metric("t_short", 2);
    probe::metric("t_long", 1680.2565819010827);
    probe::metric("t_long", 1000000000000000.5);
  }
  const std::string s = summary_text();
  INFO(s);
  // right-aligned columns of one width: the header and each row end at the same column
  size_t header = 0, rows = 0;
  std::vector<size_t> ends;
  for (size_t at = 0, next; at < s.size(); at = next + 1) {
    next = s.find('\n', at);
    const std::string line = s.substr(at, next - at);
    if (line.find("  metric ") == 0) header = line.size();
    if (line.find("t_short") != std::string::npos || line.find("t_long") != std::string::npos) {
      ends.push_back(line.size());
      ++rows;
    }
  }
  REQUIRE(rows == 2);
  CHECK(header > 0);
  for (size_t e : ends) CHECK(e == header);
  CHECK(s.find(" 1680.2565819010827 ") != std::string::npos);  // every digit, as the metric line has
  probe::set_flags("");
}

TEST_CASE("timing: the summary lists every scope, op and timer, sorted by total") {
  probe::set_flags("--probe_timing");
  probe::detail::timing_reset();
  {
    PROBE_SCOPE("t_slow");
    sleep_ms(6);
  }
  for (int i = 0; i < 3; ++i) {
    PROBE_SCOPE("t_medium");
    sleep_ms(1);
  }
  { PROBE_SCOPE("t_fast"); }
  { probe::op op("t_op", "Add"); }
  const std::string s = summary_text();
  INFO(s);
  CHECK(s.find("probe timing summary: wall ") == 0);
  for (const char* col : {"name", "kind", "count", "total", "mean", "min", "median", "p95", "max", "wall%"})
    CHECK(s.find(col) != std::string::npos);
  const size_t slow = s.find("t_slow"), medium = s.find("t_medium"), fast = s.find("t_fast"),
               op = s.find("t_op ");
  REQUIRE(slow != std::string::npos);
  REQUIRE(medium != std::string::npos);
  REQUIRE(fast != std::string::npos);
  REQUIRE(op != std::string::npos);
  // Rows come sorted by their total (read back from the table: sleeps stretch under load, so
  // which scope is largest is not fixed), and the empty scope is last.
  double previous_ns = 1e300;
  int rows = 0;
  for (size_t at = s.find('\n', s.find("wall%")) + 1, next; at < s.size(); at = next + 1) {
    next = s.find('\n', at);
    char row_name[32], row_kind[16], unit[4];
    int row_count = 0;
    double total = 0;
    if (std::sscanf(s.substr(at, next - at).c_str(), "%31s %15s %d %lf %3s", row_name, row_kind, &row_count, &total,
                    unit) != 5)
      continue;
    const std::string u = unit;
    const double ns = total * (u == "s" ? 1e9 : u == "ms" ? 1e6 : u == "us" ? 1e3 : 1);
    CHECK(ns <= previous_ns);
    previous_ns = ns;
    ++rows;
  }
  CHECK(rows == 4);
  CHECK(slow < fast);
  CHECK(medium < fast);
  const std::string medium_line = s.substr(medium, s.find('\n', medium) - medium);
  char name[32], kind[16];
  int count = 0;
  REQUIRE(std::sscanf(medium_line.c_str(), "%31s %15s %d", name, kind, &count) == 3);
  CHECK(std::string(kind) == "scope");
  CHECK(count == 3);
  probe::set_flags("");
}

TEST_CASE("timing: summary statistics: exact quantiles, then a histogram within 1%") {
  probe::detail::duration_stats s;
  for (uint64_t v = 100; v >= 1; --v) s.add(v);
  CHECK(s.count() == 100);
  CHECK(s.total() == 5050);
  CHECK(s.min() == 1);
  CHECK(s.max() == 100);
  CHECK(s.mean() == doctest::Approx(50.5));
  CHECK(s.quantile(0.5) == 50);
  CHECK(s.quantile(0.95) == 95);
  CHECK(s.exact());

  probe::detail::duration_stats big;
  std::vector<uint64_t> values;
  for (uint64_t v = 1; v <= 200000; ++v) values.push_back(v * 37);
  std::shuffle(values.begin(), values.end(), std::mt19937(3));
  for (uint64_t v : values) big.add(v);
  CHECK_FALSE(big.exact());
  CHECK(big.count() == 200000);
  CHECK(big.min() == 37);
  CHECK(big.max() == 200000u * 37);
  CHECK(big.quantile(0.5) == doctest::Approx(100000.0 * 37).epsilon(0.01));
  CHECK(big.quantile(0.95) == doctest::Approx(190000.0 * 37).epsilon(0.01));
}

TEST_CASE("timing: write_timing_summary says when timing never ran") {
  // Runs first in a fresh process only if no earlier case turned timing on; either way the
  // header is there and nothing crashes with a null FILE.
  probe::write_timing_summary(nullptr);
  CHECK(summary_text().find("probe timing summary") == 0);
}

TEST_CASE("timing: under MPI each rank's summary says which rank it is") {
  probe::set_flags("--probe_timing");
  { PROBE_SCOPE("t_ranked"); }
  setenv("OMPI_COMM_WORLD_RANK", "2", 1);
  setenv("OMPI_COMM_WORLD_SIZE", "4", 1);
  const std::string ranked = summary_text();
  setenv("OMPI_COMM_WORLD_SIZE", "1", 1);  // one rank: no label, as for a metric line
  const std::string single = summary_text();
  unsetenv("OMPI_COMM_WORLD_RANK");
  unsetenv("OMPI_COMM_WORLD_SIZE");
  CHECK(ranked.find("[rank 2] probe timing summary: wall ") == 0);
  CHECK(single.find("probe timing summary: wall ") == 0);
  CHECK(summary_text().find("probe timing summary: wall ") == 0);
}

TEST_CASE("timing: hostile names cannot drive the terminal or widen the summary") {
  probe::set_flags("--probe_timing");
  probe::detail::timing_reset();
  const std::string long_name = "L" + std::string(10000, 'x') + "_end";
  { probe::op op("esc\x1b[31mred\x07\xc2\x9b" "2J\xff\xc3", "Evil"); }
  { probe::op op(long_name.c_str(), "Long"); }
  { probe::op op("\xce\xa9mega-\xe2\x9c\x93", "Unicode"); }
  {
    probe_test::capture_fd out(1);
    probe::metric("m\x1b[0m", 1);
  }
  const std::string s = summary_text();
  INFO(s);
  CHECK(s.find('\x1b') == std::string::npos);
  CHECK(s.find('\x07') == std::string::npos);
  CHECK(s.find("\xc2\x9b") == std::string::npos);
  CHECK(s.find("esc?[31mred??2J??") != std::string::npos);
  CHECK(s.find("m?[0m") != std::string::npos);
  CHECK(s.find("\xce\xa9mega-\xe2\x9c\x93") != std::string::npos);  // valid UTF-8 stays readable
  const std::string cut = "L" + std::string(39, 'x') + "..." + std::string(33, 'x') + "_end";
  CHECK(s.find(cut) != std::string::npos);
  for (size_t at = 0, next; at < s.size(); at = next + 1) {
    next = s.find('\n', at);
    CHECK(next - at < 300);  // 80 name columns + the numbers
  }
  probe::set_flags("");
}

TEST_CASE("timing: the summary totals ops by type and rows by name pattern, and cuts long tables") {
  probe::set_flags("--probe_timing --probe_timing_summary_rows=3");
  probe::detail::timing_reset();
  for (int layer = 1; layer <= 3; ++layer) {
    {
      probe::op op("L" + std::to_string(layer) + ".rope", "Rope");
      sleep_ms(3);
    }
    probe::op op("L" + std::to_string(layer) + ".attn", "Attention");
  }
  { probe::op op("head12", "Linear"); }
  { PROBE_SCOPE("step"); }
  const std::string s = summary_text();
  INFO(s);
  CHECK(probe::detail::name_pattern("L3.rope") == "L*.rope");
  CHECK(probe::detail::name_pattern("blk12.l07x9") == "blk*.l*x*");
  // The per-name table: the three rope ops (largest), then one line for the other five rows.
  const size_t head = s.find("wall%\n");
  REQUIRE(head != std::string::npos);
  const size_t more = s.find("  ... 5 more rows: ");
  REQUIRE(more != std::string::npos);
  const std::string top = s.substr(head, more - head);
  CHECK(top.find("L1.rope") != std::string::npos);
  CHECK(top.find("L3.rope") != std::string::npos);
  CHECK(top.find("attn") == std::string::npos);
  // By op type: Rope (3 ops, 3 executions) first; types with one op each are listed too.
  const size_t types = s.find("  by op type");
  REQUIRE(types != std::string::npos);
  char name[32], kind[16];
  int names = 0, count = 0;
  const size_t rope = s.find("\n  Rope", types);
  REQUIRE(rope != std::string::npos);
  REQUIRE(std::sscanf(s.c_str() + rope + 1, "%31s %15s %d %d", name, kind, &names, &count) == 4);
  CHECK(std::string(kind) == "op");
  CHECK(names == 3);
  CHECK(count == 3);
  CHECK(s.find("\n  Attention", types) != std::string::npos);
  // By name pattern: groups of several names only (head12 alone is not one).
  const size_t patterns = s.find("  by name pattern");
  REQUIRE(patterns != std::string::npos);
  CHECK(patterns > types);
  const size_t rope_p = s.find("\n  L*.rope", patterns);
  REQUIRE(rope_p != std::string::npos);
  REQUIRE(std::sscanf(s.c_str() + rope_p + 1, "%31s %15s %d %d", name, kind, &names, &count) == 4);
  CHECK(names == 3);
  CHECK(s.find("\n  L*.attn", patterns) != std::string::npos);
  CHECK(s.find("head*") == std::string::npos);
  // Sorted by total: rope (3 x 3 ms) before attention.
  CHECK(rope_p < s.find("\n  L*.attn", patterns));
  probe::set_flags("");
}

TEST_CASE("timing: an op name holding the byte that joins name and type keeps its row and type") {
  probe::set_flags("--probe_timing");
  probe::detail::timing_reset();
  { probe::op op(std::string("odd\x1fname"), "Gather"); }
  { probe::op op("plain", "Gather"); }
  const std::string s = summary_text();
  INFO(s);
  CHECK(s.find("\n  odd?name ") != std::string::npos);  // the control byte shown as '?'
  // Both ops are one type with two names; a wrong split would make "name\x1fGather" a type.
  const size_t types = s.find("  by op type");
  REQUIRE(types != std::string::npos);
  const size_t gather = s.find("\n  Gather", types);
  REQUIRE(gather != std::string::npos);
  char kind[16];
  int names = 0;
  REQUIRE(std::sscanf(s.c_str() + gather + 9, "%15s %d", kind, &names) == 2);
  CHECK(names == 2);
  CHECK(s.find("name\x1fGather") == std::string::npos);
  probe::set_flags("");
}
