// `probe compare` as a function: two dumps (rank folders paired by name), two folders of
// .npy files, or two .npy files in; a report out (per-pair metrics, graph answers).
//
//   probe::analysis::compare_settings s;
//   probe::analysis::compare_report r = probe::analysis::compare_paths("run", "reference", s);
//   if (!r.error.empty()) ...          // bad input: the message names the file
//   r.exit_code();                     // 0 all within tolerance, 1 mismatch, 2 bad input
//
// Values are compared by worker threads (one per core, at most 8), each taking chunks of
// up to 1M elements of a pair; chunk results are merged in position order, so the answers
// do not depend on the number of threads. Standalone header, plain inline.
#pragma once
#include <stdint.h>
#include <string.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <exception>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include <probe/formats/npy.hpp>
#include <probe/util/text.hpp>
#include "compare_budget.hpp"
#include "compare_details.hpp"
#include "compare_findings.hpp"
#include "compare_graph.hpp"
#include "compare_lanes.hpp"
#include "compare_realign.hpp"
#include "compare_workers.hpp"
#include "compare_ranks.hpp"
#include "compare_stats.hpp"
#include "compare_tensors.hpp"
#include "npy_file.hpp"

PROBE_BEGIN_NAMESPACE
namespace analysis {

struct compared_run {
  std::string name;  // "" for a single run, else the run folder's name (rank_0003)
  std::vector<compared_pair> pairs;  // sequence order
  graph_answers graph;
  run_findings findings;
  std::unordered_map<std::string, int64_t> outside_step;  // output keys --step left out -> their step
  bool same_build = false;  // compare_report::same_build, for the words of its roots
  rank_run ranks;  // an MPI rank's records on both sides (compare_ranks.hpp)
};

struct compare_counts {
  size_t pairs = 0, ok = 0, mismatch = 0, shape = 0, dtype = 0, only_a = 0, only_b = 0, no_data = 0;
  size_t by_stats = 0;  // of ok and mismatch: judged by the manifest's statistics (no data files)
  size_t bad() const { return mismatch + shape + dtype + only_a + only_b; }
};

struct compare_report {
  std::string a, b;
  std::string kind;  // "dumps", "npy folders", "npy files"
  compare_settings settings;
  std::vector<compared_run> runs;
  std::vector<std::string> runs_only_a, runs_only_b;  // run folders present on one side
  rank_answers ranks;  // across the ranks of an MPI run (compare_ranks.hpp)
  std::vector<std::string> notes;
  std::string error;  // bad input; the rest is empty
  // Both dumps come from the same build of the same program, with the same modes (their run
  // records say so): an op whose inputs match and whose output differs is non-deterministic,
  // not a bug of one build.
  bool same_build = false;
  // The same build, modes and arguments, but environment variables that differ (a kernel a
  // variable chooses): not same_build; these are the variables' names.
  std::vector<std::string> environment_differs;
  compare_counts counts;
  uint64_t bytes = 0;   // data bytes read (both sides)
  double seconds = 0;   // wall time of the value comparisons
  // Every failure is a value mismatch at rounding level (nothing one-sided, no shape or dtype
  // difference); then the atol that passes them all and the largest error of a tensor's scale.
  bool all_rounding = false;
  double rounding_atol = 0, rounding_rel = 0;

  // 0 all within tolerance (or, with accept_rounding, every failure rounding-level), 1 a
  // mismatch (values, shapes, dtypes, one-sided tensors or runs), 2 bad input.
  int exit_code() const {
    if (!error.empty()) return 2;
    if (!counts.bad() && runs_only_a.empty() && runs_only_b.empty()) return 0;
    return settings.accept_rounding && all_rounding ? 0 : 1;
  }
};

// Fills all_rounding, rounding_atol and rounding_rel (after measure_details).
inline void judge_rounding(compare_report* r) {
  const compare_counts& k = r->counts;
  r->all_rounding = false;
  r->rounding_atol = r->rounding_rel = 0;
  if (!k.mismatch || k.shape || k.dtype || k.only_a || k.only_b || !r->runs_only_a.empty() || !r->runs_only_b.empty())
    return;
  for (const compared_run& run : r->runs)
    for (const compared_pair& q : run.pairs) {
      // a prior state judged by its producers repeats their verdict: they are judged here
      if (q.status != pair_status::mismatch || q.by_producers) continue;
      if (!rounding_level(q)) return;
      r->rounding_atol = std::max(r->rounding_atol, q.metrics.min_atol);
      r->rounding_rel = std::max(r->rounding_rel, q.scaled_error());
    }
  r->all_rounding = true;
}

namespace compare_run_impl {

// Variables that differ between two runs of one command without changing what it computes:
// probe's own, the launcher's (job ids), the shell's and the terminal's.
inline bool environment_noise(const std::string& name) {
  static const char* const prefixes[] = {"PROBE_", "OMPI_", "PMIX_", "PMI_", "SLURM_", "HYDRA_", "SSH_", "XDG_",
                                         "TMUX", "TERM", "KITTY_", "VSCODE_", "WT_", "GNOME_", "DESKTOP_"};
  static const char* const names[] = {"_", "PWD", "OLDPWD", "SHLVL", "DISPLAY", "WAYLAND_DISPLAY", "WINDOWID",
                                      "COLUMNS", "LINES", "STY", "LS_COLORS", "MAIL", "DBUS_SESSION_BUS_ADDRESS",
                                      "COLORTERM", "GPG_TTY", "HISTFILE", "PS1", "PROMPT_COMMAND", "MPI_LOCALRANKID",
                                      "MPI_LOCALNRANKS", "INVOCATION_ID", "JOURNAL_STREAM"};
  for (const char* p : prefixes)
    if (name.compare(0, strlen(p), p) == 0) return true;
  for (const char* n : names)
    if (name == n) return true;
  return false;
}

// The names of the variables whose values differ (or that one run has alone), noise aside;
// none when either run record predates the environment member.
inline std::vector<std::string> environment_differences(const dump_run& a, const dump_run& b) {
  std::vector<std::string> out;
  if (!a.has_environment || !b.has_environment) return out;
  auto i = a.environment.begin(), j = b.environment.begin();
  while (i != a.environment.end() || j != b.environment.end()) {
    std::string name;
    if (j == b.environment.end() || (i != a.environment.end() && i->first < j->first)) {
      name = (i++)->first;
    } else if (i == a.environment.end() || j->first < i->first) {
      name = (j++)->first;
    } else {
      if (i->second != j->second) name = i->first;
      ++i, ++j;
    }
    if (!name.empty() && !environment_noise(name)) out.push_back(name);
  }
  return out;
}

// Reads a side's .npy header; false with *error naming the file (a FIFO or a device named
// by the manifest is refused, not read).
inline bool read_side_header(pair_side* s, std::string* error) {
  npy_file file;
  if (!file.open(s->file, error, s->at_last)) return false;
  const npy::header_info& h = file.header();
  s->type = h.type;
  s->ndim = h.ndim;
  for (int i = 0; i < h.ndim; ++i) s->shape[i] = h.shape[i];
  s->data_offset = h.data_offset;
  s->swap = h.swap_bytes;
  s->fortran = h.fortran_order && h.ndim > 1;
  return true;
}

struct job {
  size_t run = 0, pair = 0;
  pair_plan plan;
  compare_impl::tensor_source a, b;
};
struct chunk {
  size_t job = 0;
  int64_t begin = 0, end = 0;
};

inline compare_impl::tensor_source source_of(const pair_side& s, std::vector<std::unique_ptr<tensor>>* keep,
                                             std::string* error) {
  compare_impl::tensor_source src;
  src.type = compare_impl::component_type(s.type);
  if (s.fortran) {  // rare: read whole and transposed to C order by the npy reader
    keep->push_back(std::make_unique<tensor>(s.at_last == links::follow ? npy::read(s.file, error)
                                                                         : npy::read_nofollow(s.file, error)));
    src.memory = static_cast<const char*>(keep->back()->data());
    return src;
  }
  src.path = s.file;
  src.offset = s.data_offset;
  src.swap = s.swap;
  return src;
}

// What a pair's chunks come to once merged.
struct job_result {
  tensor_metrics metrics;
  std::string error;
};

// Runs every chunk on `threads` workers; reports progress from the calling thread. The
// worker that finishes a pair's last chunk merges the pair's partial results in position
// order into its metrics and frees them, so that memory holds the partials (error
// histograms) of the pairs in progress only, not of every pair.
inline void run_chunks(const std::vector<job>& jobs, const std::vector<chunk>& chunks, std::vector<job_result>* results,
                       const compare_settings& s, uint64_t total_bytes) {
  const size_t job_count = jobs.size();
  std::vector<size_t> first_chunk(job_count, 0);
  std::unique_ptr<std::atomic<size_t>[]> left(new std::atomic<size_t>[job_count]);
  for (size_t j = 0; j < job_count; ++j) left[j].store(0, std::memory_order_relaxed);
  for (size_t c = chunks.size(); c-- > 0;) {
    first_chunk[chunks[c].job] = c;
    left[chunks[c].job].fetch_add(1, std::memory_order_relaxed);
  }
  std::vector<compare_impl::partial> parts(chunks.size());
  auto finish_job = [&](size_t ji) {
    compare_impl::partial merged;
    for (size_t c = first_chunk[ji]; c < chunks.size() && chunks[c].job == ji; ++c) {
      merged.merge(parts[c]);
      parts[c] = compare_impl::partial();
    }
    job_result& out = (*results)[ji];
    out.error = merged.error;
    if (out.error.empty()) out.metrics = finish_metrics(merged, jobs[ji].plan, s.check);
  };

  unsigned threads = s.threads ? s.threads : std::max(1u, std::min(8u, std::thread::hardware_concurrency()));
  if (threads > chunks.size()) threads = static_cast<unsigned>(std::max<size_t>(1, chunks.size()));
  std::atomic<size_t> next{0};
  std::atomic<uint64_t> done_bytes{0};
  std::mutex m;
  std::condition_variable cv;
  unsigned running = threads;
  auto work = [&] {
    compare_impl::worker_space w;
    for (size_t c; (c = next.fetch_add(1)) < chunks.size();) {
      const chunk& ch = chunks[c];
      const job& j = jobs[ch.job];
      compare_impl::run_chosen(j.plan.kernel, j.a, j.b, ch.begin, ch.end, j.plan.settings, w, &parts[c]);
      done_bytes += static_cast<uint64_t>(ch.end - ch.begin) * (j.a.itemsize() + j.b.itemsize());
      // acq_rel: the last one to finish sees every other chunk's partial of the pair
      if (left[ch.job].fetch_sub(1, std::memory_order_acq_rel) == 1) finish_job(ch.job);
    }
    std::lock_guard<std::mutex> lock(m);
    if (--running == 0) cv.notify_all();
  };
  std::vector<std::thread> pool;
  for (unsigned t = 0; t < threads; ++t) {
    try {
      pool.emplace_back(work);
    } catch (...) {  // fewer threads than asked: the others share the work
      std::lock_guard<std::mutex> lock(m);
      --running;
    }
  }
  if (pool.empty()) {
    running = 1;
    work();  // no thread could be started: this one does it all
  }
  {
    std::unique_lock<std::mutex> lock(m);
    while (running) {
      cv.wait_for(lock, std::chrono::milliseconds(std::max(1u, s.progress_interval_ms)));
      if (running && s.progress) s.progress(s.progress_context, done_bytes.load(), total_bytes);
    }
  }
  for (std::thread& t : pool) t.join();
}

}  // namespace compare_run_impl

// Compares the values of every comparable pair of the runs (fills status and metrics).
inline bool compare_pairs(compare_report* r) {
  using namespace compare_run_impl;
  std::vector<job> jobs;
  std::vector<std::unique_ptr<tensor>> keep;
  for (size_t ri = 0; ri < r->runs.size(); ++ri) {
    const std::vector<tolerance> asked = same_bytes_tolerances(&r->runs[ri].pairs, r->settings);
    for (size_t pi = 0; pi < r->runs[ri].pairs.size(); ++pi) {
      compared_pair& p = r->runs[ri].pairs[pi];
      if (!p.a.present || !p.b.present) {
        p.status = p.a.present ? pair_status::only_a : pair_status::only_b;
        if (!p.past_budget.empty()) {  // the other run stopped dumping before it: not a difference
          p.status = pair_status::no_data;
          p.why = p.past_budget;
        } else if (p.implicit) {
          // Inferred from what the memory held before (an output over another op's output
          // nothing read): where the allocator reused a block in one run only, one run has
          // it. The op's outputs are judged all the same.
          p.status = pair_status::no_data;
          p.why = std::string("an implicit prior state in ") + (p.a.present ? "A" : "B") +
                  " only (its memory held another op's unread output there: a block the allocator reused)";
        }
        // A file one folder of .npy files has alone: no manifest gives its dtype and shape,
        // its header does (for the row; one that cannot be read stays unknown, as it is not
        // compared).
        pair_side& alone = p.a.present ? p.a : p.b;
        if (alone.type == dtype::invalid && !alone.file.empty()) {
          pair_side read = alone;
          std::string ignored;
          if (read_side_header(&read, &ignored)) alone = read;
        }
        continue;
      }
      if (p.a.file.empty() || p.b.file.empty()) {
        // Shapes and kinds from the manifest decide first, as they do with data.
        if (p.a.type != dtype::invalid && p.b.type != dtype::invalid) {
          const pair_plan plan = plan_pair(p.a.type, p.a.shape, p.a.ndim, p.b.type, p.b.shape, p.b.ndim, asked[pi],
                                           r->settings.check);
          if (plan.status != pair_status::ok) {
            p.status = plan.status;
            p.why = plan.why;
            continue;
          }
        }
        p.status = pair_status::no_data;
        p.why = std::string("no data file in ") + (p.a.file.empty() ? (p.b.file.empty() ? "A or B" : "A") : "B");
        compare_by_stats(&p, asked[pi]);
        continue;
      }
      if (!read_side_header(&p.a, &r->error) || !read_side_header(&p.b, &r->error)) return false;
      job j;
      j.run = ri;
      j.pair = pi;
      j.plan = plan_pair(p.a.type, p.a.shape, p.a.ndim, p.b.type, p.b.shape, p.b.ndim, asked[pi], r->settings.check);
      if (j.plan.status != pair_status::ok) {
        p.status = j.plan.status;
        p.why = j.plan.why;
        continue;
      }
      j.a = source_of(p.a, &keep, &r->error);
      j.b = source_of(p.b, &keep, &r->error);
      if (!r->error.empty()) return false;
      jobs.push_back(std::move(j));
    }
  }
  constexpr int64_t chunk_elems = int64_t{1} << 20;
  std::vector<chunk> chunks;
  uint64_t total = 0;
  for (size_t ji = 0; ji < jobs.size(); ++ji) {
    const int64_t n = jobs[ji].plan.count;
    total += static_cast<uint64_t>(n) * (jobs[ji].a.itemsize() + jobs[ji].b.itemsize());
    if (n == 0) chunks.push_back({ji, 0, 0});  // empty tensors still get their metrics
    for (int64_t at = 0; at < n; at += chunk_elems) chunks.push_back({ji, at, std::min(n, at + chunk_elems)});
  }
  std::vector<job_result> results(jobs.size());
  const auto t0 = std::chrono::steady_clock::now();
  run_chunks(jobs, chunks, &results, r->settings, total);
  r->seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  r->bytes = total;
  for (size_t ji = 0; ji < jobs.size(); ++ji) {
    if (!results[ji].error.empty()) {
      r->error = results[ji].error;
      return false;
    }
    compared_pair& p = r->runs[jobs[ji].run].pairs[jobs[ji].pair];
    p.metrics = std::move(results[ji].metrics);
    p.status = p.metrics.pass ? pair_status::ok : pair_status::mismatch;
  }
  for (compared_run& run : r->runs) compare_inputs::judge_by_producers(&run.pairs);
  return true;
}

inline void count_pairs(compare_report* r) {
  compare_counts& k = r->counts;
  k = compare_counts();
  for (const compared_run& run : r->runs)
    for (const compared_pair& p : run.pairs) {
      ++k.pairs;
      switch (p.status) {
        case pair_status::ok: ++k.ok; break;
        case pair_status::mismatch: ++k.mismatch; break;
        case pair_status::shape: ++k.shape; break;
        case pair_status::dtype: ++k.dtype; break;
        case pair_status::only_a: ++k.only_a; break;
        case pair_status::only_b: ++k.only_b; break;
        case pair_status::no_data: ++k.no_data; break;
      }
      if (p.by_stats) ++k.by_stats;
    }
}

// Reads dumps a and b, side by side on two threads unless one is asked (--threads 1) or none
// can be started; *error is a's when both fail, as when read one after the other.
inline bool read_both_dumps(const std::string& a, const std::string& b, unsigned threads, std::vector<dump_run>* ra,
                            std::vector<dump_run>* rb, std::string* error) {
  std::string error_b;
  bool ok_b = false;
  std::thread reader;
  if (threads != 1) {
    try {
      reader = std::thread([&] {
        try {
          ok_b = read_dump(b, rb, &error_b);
        } catch (const std::exception& e) {  // out of memory: said as a's would be, not terminate
          error_b = b + ": " + e.what();
        }
      });
    } catch (...) {  // no thread: read b after a
    }
  }
  bool ok_a = false;
  try {
    ok_a = read_dump(a, ra, error);
  } catch (const std::exception& e) {  // the reader thread is joined before this returns
    *error = a + ": " + e.what();
  }
  if (reader.joinable())
    reader.join();
  else if (ok_a)
    ok_b = read_dump(b, rb, &error_b);
  if (ok_a && !ok_b) *error = error_b;
  return ok_a && ok_b;
}

// Pairs the runs of two dumps: by folder name when they have rank folders.
inline bool pair_dumps(compare_report* r) {
  std::vector<dump_run> ra, rb;
  if (!read_both_dumps(r->a, r->b, r->settings.threads, &ra, &rb, &r->error)) return false;
  for (const dump_run& x : ra)
    for (const std::string& n : x.notes) r->notes.push_back(n);
  for (const dump_run& x : rb)
    for (const std::string& n : x.notes) r->notes.push_back(n);
  const bool single = ra.size() == 1 && rb.size() == 1;
  r->same_build = !ra.empty() && !rb.empty();
  for (const dump_run& x : ra)
    for (const dump_run& y : rb)
      r->same_build = r->same_build && !x.build_identity.empty() && x.build_identity == y.build_identity &&
                      x.process != y.process;
  // environments of the runs that pair up (a rank with the same rank: launchers give each
  // rank variables of its own)
  std::set<std::string> env_differs;
  for (const dump_run& x : ra)
    for (const dump_run& y : rb)
      if (single || y.name == x.name)
        for (const std::string& n : compare_run_impl::environment_differences(x, y)) env_differs.insert(n);
  if (r->same_build && !env_differs.empty()) {
    r->same_build = false;
    r->environment_differs.assign(env_differs.begin(), env_differs.end());
  }
  for (dump_run& x : ra) {
    dump_run* y = nullptr;
    for (dump_run& c : rb)
      if (single || c.name == x.name) y = &c;
    if (!y) {
      r->runs_only_a.push_back(x.name);
      continue;
    }
    compared_run run;
    run.name = single ? std::string() : x.name;
    run.same_build = r->same_build;
    run.ranks.a = rank_side_of(x);
    run.ranks.b = rank_side_of(*y);
    const std::string prefix = run.name.empty() ? std::string() : ::probe::detail::printable(run.name) + ": ";
    pair_lanes(&x, y, &r->notes, prefix);
    realign_executions(x, y);
    pair_workers(&x, y, &r->notes, prefix);
    run.pairs = compare_inputs::pair_runs(x, *y, r->settings, &r->notes, &run.outside_step);
    mark_past_budget(x, *y, &run.pairs);
    // the library's notes about ops: once when both runs wrote one, else with the run named
    {
      const std::set<std::string> in_a(x.op_notes.begin(), x.op_notes.end()), in_b(y->op_notes.begin(), y->op_notes.end());
      std::set<std::string> said;
      for (const std::string& n : x.op_notes)
        if (said.insert(n).second) r->notes.push_back(prefix + (in_b.count(n) ? "" : "in A only: ") + n);
      for (const std::string& n : y->op_notes)
        if (!in_a.count(n) && said.insert(n).second) r->notes.push_back(prefix + "in B only: " + n);
    }
    r->runs.push_back(std::move(run));
  }
  for (const dump_run& y : rb) {
    bool found = single;
    for (const dump_run& x : ra) found = found || x.name == y.name;
    if (!found) r->runs_only_b.push_back(y.name);
  }
  if (r->settings.has_step) {
    for (const auto& side : {std::make_pair(&ra, &r->a), std::make_pair(&rb, &r->b)}) {
      bool any = false;
      for (const dump_run& x : *side.first)
        for (const dump_tensor& t : x.tensors) any = any || t.step == r->settings.step;
      if (!any) {
        r->error = *side.second + ": no tensor of step " + std::to_string(r->settings.step);
        return false;
      }
    }
  }
  return true;
}

// Why no pair was compared, in words.
inline std::string nothing_compared_why(const compare_report& r) {
  const compare_counts& k = r.counts;
  if (k.pairs == 0 && r.runs.empty() && (!r.runs_only_a.empty() || !r.runs_only_b.empty())) {
    // Both sides have runs, but no run folder pairs up (rank_0000 against host_1, or a rank
    // dump against a single run).
    auto names = [](const std::vector<std::string>& v) {
      std::string s;
      for (size_t i = 0; i < v.size() && i < 4; ++i)
        s += (i ? ", " : "") + (v[i].empty() ? std::string("one run at its top") : ::probe::detail::printable(v[i]));
      if (v.size() > 4) s += ", ... (" + std::to_string(v.size()) + " in all)";
      return s;
    };
    return "no run folder pairs up: A has " + names(r.runs_only_a) + ", B has " + names(r.runs_only_b);
  }
  if (k.pairs == 0) return "neither side has a tensor" + std::string(r.settings.has_step ? " at this --step" : "");
  std::string s;
  if (k.only_a || k.only_b)
    s += std::to_string(k.only_a) + " tensors only in A and " + std::to_string(k.only_b) + " only in B (no key pairs up)";
  if (k.no_data) {
    if (!s.empty()) s += "; ";
    s += std::to_string(k.no_data) + " paired tensors have neither data files nor statistics on both sides";
  }
  return s;
}

inline compare_report compare_paths(const std::string& a, const std::string& b, const compare_settings& settings) {
  compare_report r;
  r.a = a;
  r.b = b;
  r.settings = settings;
  const bool da = is_dir(a), db = is_dir(b);
  if (!da && !is_file(a)) r.error = path_problem(a);
  else if (!db && !is_file(b)) r.error = path_problem(b);
  else if (da != db) r.error = "compare two folders or two .npy files, not a folder with a file (" + a + ", " + b + ")";
  if (!r.error.empty()) return r;
  if (!da) {
    r.kind = "npy files";
    compared_run run;
    compared_pair p;
    const size_t slash = a.rfind('/');
    p.key = slash == std::string::npos ? a : a.substr(slash + 1);
    p.seq = 1;
    p.a.present = p.b.present = true;
    p.a.file = a;
    p.b.file = b;
    p.a.at_last = p.b.at_last = links::follow;  // the user named them
    run.pairs.push_back(std::move(p));
    r.runs.push_back(std::move(run));
  } else if (has_manifest(a) && has_manifest(b)) {
    r.kind = "dumps";
    if (!pair_dumps(&r)) return r;
  } else {
    r.kind = "npy folders";
    compared_run run;
    if (!compare_inputs::pair_folder_sides(a, b, &run.pairs, &r.notes, &r.error)) return r;
    r.runs.push_back(std::move(run));
  }
  if (!compare_pairs(&r)) return r;
  count_pairs(&r);
  if (!r.environment_differs.empty() && r.counts.bad() > 0) {
    std::string names;
    for (size_t i = 0; i < r.environment_differs.size() && i < 6; ++i)
      names += (i ? ", " : "") + ::probe::detail::printable(r.environment_differs[i]);
    if (r.environment_differs.size() > 6) names += ", ... (" + std::to_string(r.environment_differs.size()) + " in all)";
    r.notes.push_back("A and B come from the same build of the same program, with the same modes and arguments, but "
                      "their environments differ in " + names + ": a variable may choose a kernel, so an op whose "
                      "inputs match and whose output differs is named as a root cause, as between two builds");
  }
  if (r.same_build && r.counts.bad() > 0)  // said where something differs, where it explains
    r.notes.push_back("A and B come from the same build of the same program, with the same modes (their run records "
                      "say so): an op whose inputs match and whose output differs is non-deterministic (atomics, "
                      "reductions in thread-completion order), not a bug of one build; `probe jitter -- PROGRAM` names "
                      "such ops, and --probe_reproducible asks the engine for deterministic algorithms");
  if (r.counts.ok + r.counts.mismatch + r.counts.shape + r.counts.dtype == 0) {
    r.error = "nothing to compare: " + nothing_compared_why(r);
    return r;
  }
  for (compared_run& run : r.runs) measure_details(&run.pairs, r.settings.check);
  judge_rounding(&r);
  if (r.kind == "dumps") {
    for (compared_run& run : r.runs) {
      graph_context ctx;
      ctx.outside_step = &run.outside_step;
      // copies of part of an output are found by value: at most one more read of the data
      // compared, and 16 Mi elements at least
      if (r.settings.copies_by_value) ctx.open_values = open_npy_values;
      ctx.value_budget = 16u << 20;
      for (const compared_pair& p : run.pairs)
        if (p.metrics.compared) ctx.value_budget += 2 * static_cast<uint64_t>(p.metrics.count);
      run.graph = analyze_graph(run.pairs, ctx);
    }
    r.ranks = link_ranks(&r.runs, r.runs_only_a, r.runs_only_b);  // before find_more: it may take roots out
    for (compared_run& run : r.runs) run.findings = find_more(run.pairs, &run.graph);
    forget_linked_findings(&r.runs, r.ranks);
  }
  return r;
}

}  // namespace analysis
PROBE_END_NAMESPACE
