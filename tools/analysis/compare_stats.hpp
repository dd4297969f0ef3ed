// Two decisions `probe compare` takes before it reads values:
// - a pair without data files on both sides (a stats-only dump) is judged by the manifest's
//   statistics (count, NaN/Inf counts, min, max, mean, std), and says so;
// - the same bytes get one verdict: an input that holds exactly what its producer wrote
//   (same content hash, or the same file content) is the producer's output seen twice, and
//   per-key tolerances (--tol) must not pass it as one and fail it as the other. Both views
//   are judged with the stricter tolerance of the two, and the pair says so.
// Standalone header, plain inline.
#pragma once
#include <stdint.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <unordered_map>
#include <vector>

#include "compare_inputs.hpp"
#include "compare_tensors.hpp"
#include "npy_file.hpp"

PROBE_BEGIN_NAMESPACE
namespace analysis {

namespace stats_impl {

inline std::string num(double v) {
  char b[32];
  std::snprintf(b, sizeof b, "%.4g", v);
  return b;
}

// The bytes of two data files are the same (false when either cannot be read).
inline bool same_file_content(const std::string& x, const std::string& y) {
  if (x.empty() || y.empty()) return false;
  if (x == y) return true;
  std::string a, b, error;
  constexpr size_t most = size_t{1} << 30;
  return read_regular_file(x, &a, &error, most) && read_regular_file(y, &b, &error, most) && a == b;
}

inline bool same_bytes(const pair_side& x, const pair_side& y) {
  if (!x.hash.empty() && !y.hash.empty()) return x.hash == y.hash;
  return same_file_content(x.file, y.file);
}

}  // namespace stats_impl

// Judges a pair with no data on a side by the statistics both manifests recorded. Leaves
// it as no_data when either side has none.
inline void compare_by_stats(compared_pair* p, tolerance asked) {
  using stats_impl::num;
  if (!p->a.have_stats || !p->b.have_stats) return;
  const health &x = p->a.stats, &y = p->b.stats;
  const tolerance tol = resolve_tolerance(asked, p->a.type, p->b.type);
  p->by_stats = true;
  p->metrics.tol = tol;
  p->metrics.count = x.count;
  std::string bad;
  if (x.count != y.count) bad = "count " + std::to_string(x.count) + " vs " + std::to_string(y.count);
  else if (x.nan != y.nan) bad = "NaN count " + std::to_string(x.nan) + " vs " + std::to_string(y.nan);
  else if (x.pos_inf != y.pos_inf || x.neg_inf != y.neg_inf) bad = "Inf counts differ";
  const std::pair<const char*, std::pair<double, double>> fields[] = {
      {"min", {x.min, y.min}}, {"max", {x.max, y.max}}, {"mean", {x.mean, y.mean}}, {"std", {x.std, y.std}}};
  double worst = 0;
  for (const auto& f : fields) {
    const double a = f.second.first, b = f.second.second;
    if (std::isnan(a) && std::isnan(b)) continue;
    const double d = std::fabs(a - b);
    if (!(d <= tol.atol + tol.rtol * std::fabs(b))) {
      if (bad.empty()) bad = std::string(f.first) + " " + num(a) + " vs " + num(b);
      worst = std::isnan(d) ? __builtin_inf() : std::max(worst, d);
    }
  }
  p->metrics.max_abs = worst;
  const double scale = std::max(std::fabs(y.min), std::fabs(y.max));
  p->scale = std::isfinite(scale) && scale > 0 ? scale : -1;
  p->status = bad.empty() ? pair_status::ok : pair_status::mismatch;
  p->why = bad.empty() ? "by statistics: count, NaN/Inf, min, max, mean and std agree"
                       : "by statistics: " + bad;
}

// The tolerance each pair is judged with: --atol/--rtol/--tol, made the stricter of the two
// where an input holds the same bytes as the output it was read from.
inline std::vector<tolerance> same_bytes_tolerances(std::vector<compared_pair>* pairs, const compare_settings& s) {
  std::vector<tolerance> asked(pairs->size());
  for (size_t i = 0; i < pairs->size(); ++i) asked[i] = s.tolerance_for((*pairs)[i].key);
  if (s.overrides.empty()) return asked;  // one tolerance for every key: nothing to reconcile
  std::unordered_map<std::string, size_t> output;
  for (size_t i = 0; i < pairs->size(); ++i)
    if (!(*pairs)[i].is_input) output.emplace((*pairs)[i].key, i);
  for (size_t i = 0; i < pairs->size(); ++i) {
    compared_pair& in = (*pairs)[i];
    if (!in.is_input || in.producers.size() != 1 || !in.a.present || !in.b.present) continue;
    auto it = output.find(in.producers[0].key);
    if (it == output.end()) continue;
    compared_pair& out = (*pairs)[it->second];
    if (!out.a.present || !out.b.present) continue;
    const tolerance ti = resolve_tolerance(asked[i], in.a.type, in.b.type);
    const tolerance to = resolve_tolerance(asked[it->second], out.a.type, out.b.type);
    if (ti.atol == to.atol && ti.rtol == to.rtol) continue;
    if (!stats_impl::same_bytes(in.a, out.a) || !stats_impl::same_bytes(in.b, out.b)) continue;
    const tolerance strict{std::min(ti.atol, to.atol), std::min(ti.rtol, to.rtol)};
    asked[i] = asked[it->second] = strict;
    const std::string words = "the same bytes as " + out.key + " and " + in.key +
                              ": both judged with the stricter tolerance of the two views (atol " +
                              stats_impl::num(strict.atol) + ", rtol " + stats_impl::num(strict.rtol) + ")";
    in.tol_note = out.tol_note = words;
  }
  return asked;
}

}  // namespace analysis
PROBE_END_NAMESPACE
