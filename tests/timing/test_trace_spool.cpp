// The trace's binary spool: events come back in the order they went in, arguments intact,
// with at most one block in memory however many there are; where nothing can be spilled,
// a full block says so and the caller drains it.
#include <doctest/doctest.h>
#include <probe/probe.hpp>
#include <probe/effects/timing_spool.hpp>

#include <cstdio>
#include <cstdlib>
#include <map>
#include <string>
#include <thread>
#include <vector>

#include "../support/capture.hpp"

namespace {

struct seen {
  uint64_t begin, end;
  const std::string* prefix;
  long tid;
  std::string args;
  bool has_args;
};

std::vector<seen> drain_all(probe::detail::trace_spool& s, int* err) {
  std::vector<seen> out;
  *err = s.drain([&](const probe::detail::spool_record& r, const char* args, size_t n) {
    out.push_back(seen{r.begin, r.end, r.prefix, r.tid, args ? std::string(args, n) : std::string(), args != nullptr});
  });
  return out;
}

}  // namespace

TEST_CASE("trace spool: a long run spills in blocks and reads back in order") {
  probe_test::temp_dir dir;
  probe::detail::trace_spool s;
  s.reset(dir.path() + "/");
  const std::string a = "A", b = "B";
  // 200k events: six blocks of 1 MiB. Every 1000th carries arguments of varying length
  // (records cut by a block's end), one of them empty: "args":{} is not "no args".
  std::vector<probe::detail::timing_event> run(1000);
  uint64_t t = 0;
  for (int k = 0; k < 200; ++k) {
    for (auto& e : run) {
      e.begin = ++t;
      e.end = t + 7;
    }
    REQUIRE(s.append_run(run.data(), static_cast<uint32_t>(run.size()), k % 2 ? &a : &b, 100 + k % 3) == run.size());
    const std::string args(static_cast<size_t>(k % 13), 'x');
    ++t;
    REQUIRE(s.append(t, t + 1, &a, 7, args.data(), args.size()));
    CHECK(s.bytes_in_memory() <= probe::detail::trace_spool::k_block);
  }
  CHECK(s.count() == 200 * 1001);
  CHECK(s.bytes_spilled() > 5 * probe::detail::trace_spool::k_block);
  int err = -1;
  const std::vector<seen> got = drain_all(s, &err);
  CHECK(err == 0);
  REQUIRE(got.size() == 200u * 1001);
  CHECK(s.empty());
  CHECK(s.bytes_spilled() == 0);
  for (size_t i = 0; i < got.size(); ++i) {
    const int k = static_cast<int>(i / 1001);
    const bool with_args = i % 1001 == 1000;
    if (got[i].begin != i + 1 || got[i].has_args != with_args) FAIL("event " << i << " out of place");
    if (with_args) {
      CHECK(got[i].args == std::string(static_cast<size_t>(k % 13), 'x'));
      CHECK(got[i].prefix == &a);
      CHECK(got[i].tid == 7);
      CHECK(got[i].end == got[i].begin + 1);
    } else if (got[i].prefix != (k % 2 ? &a : &b) || got[i].tid != 100 + k % 3 || got[i].end != got[i].begin + 7) {
      FAIL("event " << i << " changed");
    }
  }
  // Reused after a drain.
  REQUIRE(s.append(1, 2, &a, 1, nullptr, 0));
  CHECK(drain_all(s, &err).size() == 1);
}

TEST_CASE("trace spool: with nowhere to spill, a full block is the caller's to drain") {
  probe::detail::trace_spool s;
  s.reset("/nonexistent-probe-dir/");
  probe::detail::timing_event e{1, 2, 0};
  uint64_t taken = 0;
  while (s.append_run(&e, 1, nullptr, 1) == 1) ++taken;
  CHECK(taken == probe::detail::trace_spool::k_block / sizeof(probe::detail::spool_record));
  CHECK(!s.append(1, 2, nullptr, 1, "x", 1));
  int err = -1;
  CHECK(drain_all(s, &err).size() == taken);
  CHECK(s.append_run(&e, 1, nullptr, 1) == 1);
}

namespace {

void spool_scope() { PROBE_SCOPE("spool_scope"); }

// Every complete event's thread and timestamp, in file order.
std::vector<std::pair<long, double>> events_in(const std::string& path, const std::string& name, size_t* ops) {
  std::vector<std::pair<long, double>> out;
  *ops = 0;
  FILE* f = std::fopen(path.c_str(), "r");
  if (!f) return out;
  char line[4096];
  while (std::fgets(line, sizeof line, f)) {
    const std::string l = line;
    if (l.find("\"cat\":\"op\"") != std::string::npos && l.find("\"args\":{") != std::string::npos) ++*ops;
    if (l.find("{\"name\":\"" + name + "\"") != 0) continue;
    const size_t ts = l.find("\"ts\":"), tid = l.find("\"tid\":");
    if (ts == std::string::npos || tid == std::string::npos) continue;
    out.emplace_back(std::atol(l.c_str() + tid + 6), std::atof(l.c_str() + ts + 5));
  }
  std::fclose(f);
  return out;
}

}  // namespace

TEST_CASE("trace spool: a spilled trace keeps every event, each thread's in order, ops with their arguments") {
  probe_test::temp_dir dir;
  const std::string path = dir / "spool.json";
  probe::set_flags(("--probe_trace_to=" + path).c_str());
  probe::detail::timing_reset();
  const int n = 60000;  // two threads: more than three blocks of records, spilled beside the trace
  std::thread worker([&] {
    for (int i = 0; i < n; ++i) spool_scope();
  });
  for (int i = 0; i < n; ++i) {
    spool_scope();
    if (i % 10000 == 0) {
      probe::op o("spool_op", "Op");
      o.attr("i", static_cast<int64_t>(i));
    }
  }
  worker.join();
  probe::flush();
  size_t ops = 0;
  const auto ev = events_in(path, "spool_scope", &ops);
  CHECK(ev.size() == static_cast<size_t>(2 * n));
  CHECK(ops == 6);
  std::map<long, double> last;
  size_t out_of_order = 0;
  for (const auto& e : ev) {
    auto it = last.find(e.first);
    if (it != last.end() && e.second < it->second) ++out_of_order;
    last[e.first] = e.second;
  }
  CHECK(last.size() == 2);
  CHECK(out_of_order == 0);
  probe::set_flags("");
}
