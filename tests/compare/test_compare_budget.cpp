// probe compare on a dump cut short by a budget (--probe_dump_max_ops, --probe_dump_max_bytes):
// what the cut-short run did not record after it stopped is no data, not ops only in the other
// run, and is no mismatch; what it recorded before, and a difference there, is judged as ever.
#include <doctest/doctest.h>

#include "analysis/compare_json.hpp"
#include "analysis/compare_run.hpp"
#include "analysis/compare_text.hpp"

#include <cstdio>
#include <string>

#include "../support/capture.hpp"
#include "reference_engine.hpp"

using namespace compare_test;
namespace pa = probe::analysis;
using probe_test::temp_dir;

namespace {

size_t budget_past_pairs(const pa::compare_report& r) {
  size_t n = 0;
  for (const pa::compared_pair& p : r.runs[0].pairs) n += !p.past_budget.empty();
  return n;
}

// A tensor record as the library writes it, statistics only (no data file): the graph fields
// the cases need (parent, producer) and its values' statistics.
std::string budget_record(uint64_t seq, const std::string& op, uint64_t parent, bool input, const std::string& slot,
                          float value) {
  char stats[256];
  std::snprintf(stats, sizeof stats,
                "{\"count\":4,\"finite\":4,\"min\":%.9g,\"max\":%.9g,\"mean\":%.9g,\"std\":0,\"nan\":0,\"posinf\":0,"
                "\"neginf\":0,\"zero\":0,\"subnormal\":0,\"negative\":0,\"positive\":4}",
                value, value, value);
  return "{\"record\":\"tensor\",\"seq\":" + std::to_string(seq) + ",\"step\":0,\"op\":\"" + op +
         "\",\"type\":\"T\",\"occurrence\":0,\"parent\":" + (parent ? std::to_string(parent) : std::string("null")) +
         ",\"io\":\"" + (input ? "in" : "out") + "\",\"slot\":\"" + slot + "\",\"key\":\"" + op + "#0/" +
         (input ? "in/" : "out/") + slot + "\",\"producer\":null,\"dtype\":\"float32\",\"shape\":[4],\"file\":null," +
         "\"stats\":" + stats + "}\n";
}

void write_budget_manifest(const std::string& dir, const std::string& lines) {
  mkdir(dir.c_str(), 0755);
  FILE* f = std::fopen((dir + "/manifest.jsonl").c_str(), "w");
  REQUIRE(f);
  std::fputs(("{\"record\":\"run\",\"probe_version\":\"test\"}\n" + lines + "{\"record\":\"end\"}\n").c_str(), f);
  std::fclose(f);
}

}  // namespace

TEST_CASE("compare budget: ops a --probe_dump_max_ops run did not record are no data, and it passes") {
  temp_dir d;
  dump_run<float>(d / "ref", true);
  dump_run<float>(d / "cut", false, engine_options(), 1, "--probe_dump_max_ops=3");
  const pa::compare_report r = pa::compare_paths(d / "cut", d / "ref", pa::compare_settings());
  const std::string text = pa::compare_text(r);
  INFO(text);
  REQUIRE(r.error.empty());
  CHECK(r.counts.only_a == 0);
  CHECK(r.counts.only_b == 0);
  CHECK(r.counts.no_data > 0);
  CHECK(r.counts.no_data == budget_past_pairs(r));
  CHECK(r.counts.ok + r.counts.no_data == r.counts.pairs);
  CHECK(r.exit_code() == 0);
  CHECK(r.runs[0].findings.align.only_b.empty());
  CHECK(text.find("no data (past A's dump budget)") != std::string::npos);
  CHECK(text.find("only in B") == std::string::npos);
  CHECK(text.find("op sequences differ") == std::string::npos);
  CHECK(pa::compare_json(r).find("past A's dump budget (--probe_dump_max_ops=3 reached)") != std::string::npos);

  // The reference cut short instead: A's tensors past B's budget are no data as well.
  dump_run<float>(d / "refcut", true, engine_options(), 1, "--probe_dump_max_ops=2");
  const pa::compare_report rb = pa::compare_paths(d / "cut", d / "refcut", pa::compare_settings());
  INFO(pa::compare_text(rb));
  REQUIRE(rb.error.empty());
  CHECK(rb.counts.only_a == 0);
  CHECK(rb.counts.no_data > 0);
  CHECK(rb.exit_code() == 0);
  CHECK(rb.runs[0].findings.align.only_a.empty());
}

TEST_CASE("compare budget: a --probe_dump_max_bytes run stopped in the middle of an op; a bug before it still fails") {
  temp_dir d;
  dump_run<float>(d / "ref", true);
  // fc1's input x is 2 KiB, its weight 3 KiB: the byte budget stops within fc1
  dump_run<float>(d / "cut", false, engine_options(), 1, "--probe_dump_max_bytes=3000");
  const pa::compare_report r = pa::compare_paths(d / "cut", d / "ref", pa::compare_settings());
  INFO(pa::compare_text(r));
  REQUIRE(r.error.empty());
  CHECK(r.counts.ok >= 1);
  CHECK(r.counts.only_a + r.counts.only_b == 0);
  CHECK(r.counts.no_data == budget_past_pairs(r));
  CHECK(r.exit_code() == 0);

  // What was recorded before the budget is judged as ever: the planted norm bug is a root.
  engine_options bug;
  bug.planted = plant::wrong_norm;
  dump_run<float>(d / "bug", false, bug, 1, "--probe_dump_max_ops=5");
  const pa::compare_report b = pa::compare_paths(d / "bug", d / "ref", pa::compare_settings());
  INFO(pa::compare_text(b));
  REQUIRE(b.error.empty());
  CHECK(b.exit_code() == 1);
  CHECK(b.counts.mismatch > 0);
  CHECK(b.counts.only_b == 0);
  bool norm_root = false;
  for (const auto& root : b.runs[0].graph.roots)
    norm_root = norm_root || b.runs[0].graph.nodes[root.node].op_key == "norm#0";
  CHECK(norm_root);
}

TEST_CASE("compare budget: an op still open at the stop lost its outputs only; a difference before the stop stays") {
  temp_dir d;
  // B ran it all: first (seq 1, with an input z A has not), outer (2) enclosing inner (3) and
  // late (4), whose outputs come before outer's, then after (5).
  const std::string first = budget_record(1, "first", 0, true, "x", 1) + budget_record(1, "first", 0, false, "y", 2);
  const std::string outer_in = budget_record(2, "outer", 0, true, "x", 2);
  const std::string inner = budget_record(3, "inner", 2, true, "x", 2) + budget_record(3, "inner", 2, false, "y", 3);
  write_budget_manifest(d / "full", first + budget_record(1, "first", 0, true, "z", 7) + outer_in + inner +
                                        budget_record(4, "late", 2, true, "x", 3) +
                                        budget_record(4, "late", 2, false, "y", 4) +
                                        budget_record(2, "outer", 0, false, "y", 4) +
                                        budget_record(5, "after", 0, true, "x", 4) +
                                        budget_record(5, "after", 0, false, "y", 5));
  // A stopped when late began (seq 4): outer was open, its output never recorded.
  write_budget_manifest(d / "cut", first + outer_in + inner +
                                       "{\"record\":\"budget\",\"reason\":\"--probe_dump_max_ops=3 reached\",\"seq\":4,"
                                       "\"ops\":3,\"bytes\":0}\n");
  const pa::compare_report r = pa::compare_paths(d / "cut", d / "full", pa::compare_settings());
  INFO(pa::compare_text(r));
  REQUIRE(r.error.empty());
  for (const pa::compared_pair& p : r.runs[0].pairs) {
    CAPTURE(p.key);
    if (p.key == "first#0/in/z") CHECK(p.status == pa::pair_status::only_b);  // before the stop: a difference
    else if (p.key == "outer#0/out/y" || p.key.compare(0, 5, "late#") == 0 || p.key.compare(0, 6, "after#") == 0)
      CHECK((p.status == pa::pair_status::no_data && !p.past_budget.empty()));
    else CHECK(p.status == pa::pair_status::ok);
  }
  CHECK(r.counts.only_b == 1);
  CHECK(r.counts.no_data == 5);
  CHECK(r.exit_code() == 1);
  CHECK(r.runs[0].findings.align.only_b.empty());  // late and after are not ops B ran alone
}
