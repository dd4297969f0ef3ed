// Root-cause accuracy of probe compare and verdicts of probe replay (benchmarks/README.md,
// "root cause"), measured on generated engines instead of hand-picked cases: each seed gives
// a small engine of one buffer pattern (benchmarks/rootcause/), run twice through the real
// library (the dumps written by probe): clean (run B, with snapshots) and with one planted
// difference (run A). probe compare's structured answer is scored against the truth, and one
// op of run B is replayed with the engine's kernel, one that computes nothing and one off by
// one element. An op split over worker threads (workers, c_callers) gives each worker a
// contiguous block of its output or, in half the splits, the interleaved rows t, t + tiles, ...
// declared as strided views (in a quarter of the engines the layers are [160-200, 2-4], and a
// worker's 40-100 rows, a 2-D view, are more runs than the producer map keeps apart: 32); in
// half, drawn apart, each worker op is begun with its index ("L<t>.<name>.tile"), so the
// workers' names differ (rootcause/patterns.hpp).
//
//   bench_rootcause                  3,520 pairs (160 per pattern), the table and the targets
//   bench_rootcause --quick          8 pairs per pattern (the smoke run)
//   --pairs N  --seed S  --pattern a,b  --show N (failing cases printed, default 5)
//   --case SEED:PATTERN              one pair in full: its engine, the compare report, the score
//   --keep DIR                       write the dumps under DIR and keep them (with --case)
//   --dump-threads N                 the dump's writer threads (default 0: on the op's thread)
//   --crashes-only                   exit 1 only when a pair could not be answered (sanitizer runs)
// Exit code: 0 when every target is met (exact single root >= 0.99 per pattern, false hints
// <= 0.5%, no crash, every replay verdict right), 1 otherwise.
#include <ftw.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>

#include <chrono>
#include <ctime>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "analysis/compare_text.hpp"
#include "rootcause/score.hpp"

namespace {

struct tally {
  size_t pairs = 0, exact = 0, false_root = 0, false_hint = 0, crash = 0;
  size_t outside = 0, hinted = 0, rounding = 0, rounding_labelled = 0, bug_rounding = 0, no_mismatch = 0;
  size_t copies = 0, copies_hinted = 0, implicit_wrong = 0, implicit_pairs = 0, derived = 0, derived_hinted = 0;
  size_t replay_right = 0, replay_total = 0;
  void add(const tally& t) {
    pairs += t.pairs, exact += t.exact, false_root += t.false_root, false_hint += t.false_hint, crash += t.crash;
    outside += t.outside, hinted += t.hinted, rounding += t.rounding, rounding_labelled += t.rounding_labelled;
    bug_rounding += t.bug_rounding, no_mismatch += t.no_mismatch;
    copies += t.copies, copies_hinted += t.copies_hinted;
    implicit_wrong += t.implicit_wrong, implicit_pairs += t.implicit_pairs;
    derived += t.derived, derived_hinted += t.derived_hinted;
    replay_right += t.replay_right, replay_total += t.replay_total;
  }
};

std::string work_dir() {
  const char* env = std::getenv("BENCH_DIR");
  std::string base = env && *env ? env : (access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp");
  return base + "/probe_bench_rootcause_" + std::to_string(getpid());
}

// In-process (a shell per pair would cost half the benchmark's time).
void remove_tree(const std::string& dir) {
  auto remove_one = [](const char* path, const struct stat*, int, struct FTW*) { return ::remove(path); };
  if (nftw(dir.c_str(), remove_one, 16, FTW_DEPTH | FTW_PHYS) != 0 && errno != ENOENT)
    std::fprintf(stderr, "bench_rootcause: could not remove %s\n", dir.c_str());
}

bool parse_pattern(const std::string& name, rc::pattern* p) {
  for (int k = 0; k < static_cast<int>(rc::pattern::count); ++k)
    if (name == rc::pattern_name(static_cast<rc::pattern>(k))) {
      *p = static_cast<rc::pattern>(k);
      return true;
    }
  return false;
}

std::string ratio(size_t n, size_t d) {
  if (!d) return "–";
  char s[32];
  std::snprintf(s, sizeof s, "%.3f", static_cast<double>(n) / static_cast<double>(d));
  return s;
}

void print_engine(const rc::gen_case& c) {
  static const char* const marks[] = {"output after", "output_at_end", "inout", "implicit in place", "local"};
  std::printf("engine: %s, %d steps, %zu buffers, %zu op executions%s\n", c.e.f64 ? "float64" : "float32", c.e.steps,
              c.e.buf_len.size(), c.e.ops.size(), c.e.swap_nets_in_a ? ", A starts the copies' threads in the other order" : "");
  for (size_t i = 0; i < c.e.ops.size(); ++i) {
    const rc::op_desc& d = c.e.ops[i];
    std::printf("  %3zu step %d %-16s %-7s y=buf%d[%d:+%d] %s", i, d.step, d.name.c_str(), rc::kind_type(d.k), d.out.buf,
                d.out.off, d.out.len, marks[static_cast<int>(d.m)]);
    for (const rc::region& r : d.in) std::printf(" in buf%d[%d:+%d]", r.buf, r.off, r.len);
    if (d.tiles) {
      std::printf(" tiles=%d%s%s", d.tiles, d.interleaved ? " interleaved" : "", d.tile_indexed ? " indexed" : "");
      // a worker's rows are that many runs of its view: past 32, the producer map's exact limit
      if (d.interleaved && d.out.rows > 0) {
        const int w = d.out.len / d.out.rows, most = rc::tile_of(d, 0).count / w, least = rc::tile_of(d, d.tiles - 1).count / w;
        std::printf(" rows of [%d, %d], %d%s%s a worker", d.out.rows, w, least, least == most ? "" : "-",
                    least == most ? "" : std::to_string(most).c_str());
      }
    }
    if (d.net >= 0) std::printf(" net=%d", d.net);
    if (d.only_a) std::printf(" A-only");
    if (d.reassoc_a) std::printf(" reassociated-in-A");
    if (d.c_api) std::printf(" C");
    if (d.encloses) std::printf(" block of the next %d", d.encloses);
    std::printf("\n");
  }
  for (const rc::outside_write& w : c.e.outside)
    if (w.from.buf >= 0 && w.order == rc::k_derived) {
      char f[96], y[48] = "";
      if (w.with.buf >= 0) {  // a residual
        std::snprintf(f, sizeof f, "%g x + %g y + %g", w.factor, w.with_factor, w.shift);
        std::snprintf(y, sizeof y, ", y = buf%d[%d:+%d]", w.with.buf, w.with.off, w.with.len);
      } else if (w.normalize) {
        std::snprintf(f, sizeof f, "(x - mean) / std");
      } else {
        std::snprintf(f, sizeof f, w.squash ? "tanh(%g x + %g)" : "%g x + %g", w.factor, w.shift);
      }
      std::printf("  outside any op after %d: buf%d[%d:+%d] = %s, x = buf%d[%d:+%d]%s\n", w.after, w.r.buf, w.r.off,
                  w.r.len, f, w.from.buf, w.from.off, w.from.len, y);
    } else if (w.from.buf >= 0)
      std::printf("  outside any op after %d: buf%d[%d:+%d] = buf%d[%d:+%d]\n", w.after, w.r.buf, w.r.off, w.r.len,
                  w.from.buf, w.from.off, w.from.len);
    else
      std::printf("  outside any op after %d: buf%d[%d:+%d] *= %g\n", w.after, w.r.buf, w.r.off, w.r.len, w.factor);
  if (c.b.op >= 0 || c.b.outside >= 0)
    std::printf("bug: %s %d tile %d, elements [%d, +%d), %g x tolerance\n", c.b.op >= 0 ? "op" : "outside write",
                c.b.op >= 0 ? c.b.op : c.b.outside, c.b.tile, c.b.first, c.b.count, c.b.size);
}

}  // namespace

int main(int argc, char** argv) {
  bool quick = false, crashes_only = false;
  size_t pairs = 0;
  uint64_t seed = 1;
  size_t show = 5;
  std::vector<rc::pattern> pats;
  std::string one_case, keep;
  // Dump files written on the op's thread: the same files, a third of the time of a run
  // (--dump-threads N: with N writer threads, the library's default being 2).
  std::string dump_threads = "0";
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "bench_rootcause: %s needs a value\n", arg.c_str());
        std::exit(2);
      }
      return argv[++i];
    };
    if (arg == "--quick") quick = true;
    else if (arg == "--crashes-only") crashes_only = true;
    else if (arg == "--pairs") pairs = std::strtoull(value().c_str(), nullptr, 10);
    else if (arg == "--seed") seed = std::strtoull(value().c_str(), nullptr, 10);
    else if (arg == "--show") show = std::strtoull(value().c_str(), nullptr, 10);
    else if (arg == "--case") one_case = value();
    else if (arg == "--keep") keep = value();
    else if (arg == "--dump-threads") dump_threads = value();
    else if (arg == "--pattern") {
      const std::string list = value();
      size_t at = 0;
      while (at <= list.size()) {
        const size_t comma = std::min(list.find(',', at), list.size());
        rc::pattern p;
        if (!parse_pattern(list.substr(at, comma - at), &p)) {
          std::fprintf(stderr, "bench_rootcause: unknown pattern '%s'\n", list.substr(at, comma - at).c_str());
          return 2;
        }
        pats.push_back(p);
        at = comma + 1;
      }
    } else {
      std::fprintf(stderr, "bench_rootcause: unknown argument %s\n", arg.c_str());
      return 2;
    }
  }
  if (pats.empty())
    for (int k = 0; k < static_cast<int>(rc::pattern::count); ++k) pats.push_back(static_cast<rc::pattern>(k));
  if (!pairs) pairs = pats.size() * (quick ? 8 : 160);
  rc::register_replay_kernels();
  const std::string flags = "--probe_dump_threads=" + dump_threads;
  const std::string root = keep.empty() ? work_dir() : keep;
  if (std::system(("mkdir -p '" + root + "'").c_str()) != 0) return 2;

  if (!one_case.empty()) {
    const size_t colon = one_case.find(':');
    rc::pattern p;
    if (colon == std::string::npos || !parse_pattern(one_case.substr(colon + 1), &p)) {
      std::fprintf(stderr, "bench_rootcause: --case SEED:PATTERN\n");
      return 2;
    }
    const rc::gen_case c = rc::generate(std::strtoull(one_case.c_str(), nullptr, 10), p);
    print_engine(c);
    probe::analysis::compare_report r;
    const rc::verdict v = rc::score_case(c, root, flags, &r);
    std::printf("\n%s\n", probe::analysis::compare_text(r).c_str());
    std::printf("expected: %s\nreported: %s\n%s%s\n", v.expected.c_str(), v.reported.c_str(), v.exact ? "exact" : "NOT exact",
                v.error.empty() ? "" : ("; error: " + v.error).c_str());
    if (keep.empty()) remove_tree(root);
    return v.exact && v.error.empty() && !v.false_hint ? 0 : 1;
  }

  std::vector<tally> by(static_cast<size_t>(rc::pattern::count));
  size_t shown = 0;
  const auto t0 = std::chrono::steady_clock::now();
  const std::clock_t c0 = std::clock();
  std::vector<uint64_t> next_seed(static_cast<size_t>(rc::pattern::count), seed);
  for (size_t i = 0; i < pairs; ++i) {
    // the k-th pair of a pattern has seed S + k whatever other patterns run beside it
    const rc::pattern p = pats[i % pats.size()];
    const uint64_t s = next_seed[static_cast<size_t>(p)]++;
    const rc::gen_case c = rc::generate(s, p);
    const std::string dir = root + "/" + std::to_string(i);
    rc::verdict v;
    try {
      v = rc::score_case(c, dir, flags);
    } catch (const std::exception& ex) {
      v.error = std::string("exception: ") + ex.what();
    }
    remove_tree(dir);
    tally& t = by[static_cast<size_t>(p)];
    ++t.pairs;
    t.crash += !v.error.empty();
    t.exact += v.exact;
    t.false_root += v.false_root;
    t.false_hint += v.false_hint;
    t.outside += c.outside_change;
    t.hinted += v.hinted;
    t.copies += v.copy_differs;
    t.implicit_wrong += static_cast<size_t>(v.implicit_wrong);
    t.implicit_pairs += v.implicit_wrong > 0;
    t.copies_hinted += v.copy_differs && v.copy_hinted;
    t.derived += v.derived_differs;
    t.derived_hinted += v.derived_differs && v.derived_hinted;
    t.rounding += c.rounding_only;
    t.rounding_labelled += v.rounding_labelled;
    t.bug_rounding += v.bug_called_rounding;
    t.no_mismatch += v.no_mismatch;
    t.replay_right += static_cast<size_t>(v.replay_right);
    t.replay_total += 3;
    const bool bad = !v.exact || v.false_hint || !v.error.empty() || v.replay_right != 3 ||
                     (c.rounding_only && !v.rounding_labelled);
    if (bad && shown < show) {
      ++shown;
      std::printf("FAIL %s seed %llu (bench_rootcause --case %llu:%s)\n  expected: %s\n  reported: %s%s\n",
                  rc::pattern_name(p), static_cast<unsigned long long>(s), static_cast<unsigned long long>(s),
                  rc::pattern_name(p), v.expected.c_str(), v.reported.c_str(), v.error.empty() ? "" : ("\n  error: " + v.error).c_str());
    }
  }
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  const double cpu = static_cast<double>(std::clock() - c0) / CLOCKS_PER_SEC;  // this process, every thread
  remove_tree(root);

  std::printf("\n| pattern | pairs | exact single root | false roots | false hints | overwrites given a prior state | "
              "outside-op hinted | copies hinted | computed outside hinted | rounding labelled | bug called rounding | "
              "replay right | crashes |\n|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
  // Op executions the dump gave an implicit prior state (the library cannot see whether an op
  // reads the bytes it writes over) that only overwrite them; the note says both may be.
  auto overwrites = [](const tally& t) {
    return t.implicit_wrong ? std::to_string(t.implicit_wrong) + " in " + std::to_string(t.implicit_pairs) + " pairs"
                            : std::string("0");
  };
  tally all;
  std::string below;
  double worst = 1;
  const char* worst_name = "";
  for (int k = 0; k < static_cast<int>(rc::pattern::count); ++k) {
    const rc::pattern p = static_cast<rc::pattern>(k);
    const tally& t = by[static_cast<size_t>(k)];
    if (!t.pairs) continue;
    all.add(t);
    auto of = [](size_t n, size_t d) { return d ? std::to_string(n) + " of " + std::to_string(d) : std::string("–"); };
    std::printf("| %s | %zu | %s | %zu | %zu | %s | %s | %s | %s | %s | %zu | %s | %zu |\n", rc::pattern_name(p), t.pairs,
                ratio(t.exact, t.pairs).c_str(), t.false_root, t.false_hint, overwrites(t).c_str(),
                of(t.hinted, t.outside).c_str(),
                of(t.copies_hinted, t.copies).c_str(), of(t.derived_hinted, t.derived).c_str(),
                of(t.rounding_labelled, t.rounding).c_str(),
                t.bug_rounding, ratio(t.replay_right, t.replay_total).c_str(), t.crash);
    const double rate = static_cast<double>(t.exact) / static_cast<double>(t.pairs);
    if (rate < 0.99) below += std::string(below.empty() ? "" : ", ") + rc::pattern_name(p);
    if (rate < worst || !*worst_name) {
      worst = rate;
      worst_name = rc::pattern_name(p);
    }
  }
  std::printf("| all | %zu | %s | %zu | %zu | %s | %zu of %zu | %zu of %zu | %zu of %zu | %zu of %zu | %zu | %s | %zu |\n\n",
              all.pairs, ratio(all.exact, all.pairs).c_str(), all.false_root, all.false_hint, overwrites(all).c_str(),
              all.hinted, all.outside, all.copies_hinted, all.copies, all.derived_hinted, all.derived, all.rounding_labelled, all.rounding, all.bug_rounding,
              ratio(all.replay_right, all.replay_total).c_str(), all.crash);
  const double hint_rate = all.pairs ? static_cast<double>(all.false_hint) / static_cast<double>(all.pairs) : 0;
  const bool met = below.empty() && hint_rate <= 0.005 && all.crash == 0 && all.replay_right == all.replay_total &&
                   all.rounding_labelled == all.rounding;
  std::printf("bench_rootcause: %zu pairs of %zu patterns in %.1f s, %.1f s of CPU (a pair: two runs dumped, compare, three replays)\n",
              all.pairs, pats.size(), seconds, cpu);
  std::printf("exact single root %s (worst: %s %.3f, target >= 0.99 each), false hints %.2f%% (<= 0.5%%), crashes %zu, replay right %s\n",
              ratio(all.exact, all.pairs).c_str(), worst_name, worst, 100 * hint_rate, all.crash,
              ratio(all.replay_right, all.replay_total).c_str());
  std::printf("targets %s%s%s\n", met ? "met" : "NOT met", below.empty() ? "" : "; below 0.99: ", below.c_str());
  if (crashes_only) return all.crash ? 1 : 0;
  return met ? 0 : 1;
}
