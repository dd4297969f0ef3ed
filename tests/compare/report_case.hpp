// A compare report in which every op is its own root cause: n independent ops, each reading
// a matching graph input and writing an output out of tolerance (the pairs built in memory,
// the graph answered). For the tests of the reports' size and cost as roots grow.
#pragma once
#include <cstdio>
#include <string>

#include "analysis/compare_run.hpp"

namespace compare_test {

// The pairs alone (compared, the graph not yet answered).
inline probe::analysis::compared_run independent_pairs(size_t n) {
  namespace pa = probe::analysis;
  pa::compared_run run;
  run.pairs.reserve(2 * n);
  for (size_t i = 0; i < n; ++i)
    for (int io = 0; io < 2; ++io) {
      pa::compared_pair p;
      p.op = "op" + std::to_string(i);
      p.slot = io ? "y" : "x";
      p.is_input = io == 0;
      p.key = p.op + "#0/" + (io ? "out/y" : "in/x");
      p.seq = i + 1;
      p.line = 2 * i + static_cast<size_t>(io);
      for (pa::pair_side* s : {&p.a, &p.b}) {
        s->present = true;
        s->type = probe::dtype::float32;
        s->ndim = 1;
        s->shape[0] = 4;
        s->seq = p.seq;
      }
      p.metrics.compared = true;
      p.metrics.count = 4;
      p.status = io ? pa::pair_status::mismatch : pa::pair_status::ok;
      p.metrics.pass = !io;
      p.metrics.fail = io;
      p.metrics.fail_fraction = io ? 0.25 : 0;
      p.metrics.max_abs = io ? 0.5 : 0;
      p.metrics.max_rel = io ? 0.125 : 0;
      p.scale = 2;
      run.pairs.push_back(std::move(p));
    }
  return run;
}

inline probe::analysis::compare_report independent_roots(size_t n) {
  namespace pa = probe::analysis;
  pa::compare_report r;
  r.kind = "dumps";
  r.runs.push_back(independent_pairs(n));
  pa::compared_run& run = r.runs[0];
  pa::count_pairs(&r);
  run.graph = pa::analyze_graph(run.pairs);
  run.findings = pa::find_more(run.pairs, &run.graph);
  return r;
}

// The same n ops as two manifests without data files (statistics only): `reference` is run
// B, whose outputs have mean 1.0; run A's are 1.5. For the whole `probe compare` on them.
inline std::string independent_roots_manifest(size_t n, bool reference) {
  std::string m = "{\"record\":\"run\",\"probe_version\":\"bench\"}\n";
  for (size_t i = 0; i < n; ++i)
    for (int out = 0; out < 2; ++out) {
      const double mean = out && !reference ? 1.5 : 1.0;
      char stats[256];
      std::snprintf(stats, sizeof stats,
                    "{\"count\":4,\"finite\":4,\"min\":%g,\"max\":%g,\"mean\":%g,\"std\":0.5,\"nan\":0,\"posinf\":0,"
                    "\"neginf\":0,\"zero\":0,\"subnormal\":0,\"negative\":0,\"positive\":4}",
                    mean - 0.5, mean + 0.5, mean);
      const std::string op = "op" + std::to_string(i), io = out ? "out" : "in", slot = out ? "y" : "x";
      m += "{\"record\":\"tensor\",\"seq\":" + std::to_string(i + 1) + ",\"step\":0,\"op\":\"" + op +
           "\",\"type\":\"t\",\"occurrence\":0,\"parent\":null,\"io\":\"" + io + "\",\"slot\":\"" + slot + "\",\"key\":\"" +
           op + "#0/" + io + "/" + slot + "\",\"dtype\":\"float32\",\"shape\":[4],\"file\":null,\"stats\":" + stats +
           (out ? "" : ",\"producer\":null") + "}\n";
    }
  return m + "{\"record\":\"end\"}\n";
}

}  // namespace compare_test
