// probe compare's reports as root causes grow: the text says the first root causes in full
// and the rest in one line (its size grows by a table row per root, not a paragraph), the
// JSON keeps every root and tensor, its numbers written as json::writer writes them.
#include <doctest/doctest.h>

#include "analysis/compare_json.hpp"
#include "analysis/compare_text.hpp"

#include <cmath>
#include <limits>
#include <string>

#include <probe/formats/json_read.hpp>
#include <probe/formats/json_write.hpp>

#include "compare_checked.hpp"
#include "report_case.hpp"

namespace pa = probe::analysis;
using compare_test::count_of;

TEST_CASE("reports: past 50 root causes the text names the rest in one line; --all says each") {
  const pa::compare_report small = compare_test::independent_roots(2000);
  const pa::compare_report large = compare_test::independent_roots(8000);
  const std::string a = pa::compare_text(small), b = pa::compare_text(large);
  CHECK(count_of(b, "Root cause:") == 50);
  CHECK(b.find("And 7950 more root causes (--all says each in full; the JSON report lists them all): op") !=
        std::string::npos);
  CHECK(count_of(b, "MISMATCH") == 8000);  // the table keeps a row per differing tensor
  // Each root beyond the first 50 adds its table row (about 90 bytes), no paragraph (about 170).
  const double per_root = static_cast<double>(b.size() - a.size()) / 6000;
  MESSAGE("text bytes per root cause: " << per_root);
  CHECK(per_root < 120);
  pa::compare_text_options all;
  all.all_rows = true;
  CHECK(count_of(pa::compare_text(small, all), "Root cause:") == 2000);
  // Up to the limit, nothing is summarised.
  const std::string few = pa::compare_text(compare_test::independent_roots(50));
  CHECK(count_of(few, "Root cause:") == 50);
  CHECK(few.find("more root causes") == std::string::npos);
}

TEST_CASE("reports: the JSON lists every root and tensor") {
  const pa::compare_report r = compare_test::independent_roots(3000);
  probe::json::value doc;
  std::string err;
  const std::string text = pa::compare_json(r);
  REQUIRE_MESSAGE(probe::json::parse(text, doc, &err), err);
  const probe::json::value& run = doc.get("runs")[0];
  CHECK(run.get("roots").size() == 3000);
  REQUIRE(run.get("tensors").size() == 6000);
  const probe::json::value& out = run.get("tensors")[1];
  CHECK(out.get("key").as_string() == "op0#0/out/y");
  CHECK(out.get("metrics").get("max_abs").as_double() == 0.5);
  CHECK(out.get("status").as_string() == "mismatch");
}

TEST_CASE("reports: the JSON's numbers are written as json::writer writes them") {
  // The tensors are written without json::writer, whole numbers by a shorter path: each
  // value must come out as the writer would print it.
  const double inf = std::numeric_limits<double>::infinity();
  const double values[] = {0.0, -0.0, 1.0, -3.0, 0.5, 1e-300, 2147483647.0, -2147483647.0, 2147483648.0,
                           -2147483648.0, 1e15, 1e16, 123456.75, 3e-5, inf, -inf, std::nan("")};
  for (double v : values) {
    CAPTURE(v);
    pa::compare_report r = compare_test::independent_roots(1);
    r.runs[0].pairs[1].metrics.max_abs = v;
    r.runs[0].pairs[1].metrics.hist.counts = {2, 1, 1};
    const std::string text = pa::compare_json(r);
    std::string want = "{\"max_abs\":";
    probe::json::writer w(want);
    w.value(v);
    const size_t at = text.find(",\"max_abs\":", text.find("\"key\":\"op0#0/out/y\""));
    REQUIRE(at != std::string::npos);
    CHECK(text.compare(at + 1, want.size() - 1, want, 1, want.size() - 1) == 0);
    CHECK(text.find("\"histogram\":{\"lowest_decade\":0,\"zero\":2,\"counts\":[1,1]}") != std::string::npos);
  }
}
