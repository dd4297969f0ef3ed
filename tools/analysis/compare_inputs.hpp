// What `probe compare` pairs: the settings, the pairs of tensors (by stable key for dumps,
// by relative path for folders of .npy files), and the gathering of both sides.
// Standalone header, plain inline.
#pragma once
#include <stdint.h>
#include <stdlib.h>
#include <sys/stat.h>

#include <algorithm>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include <probe/util/regex.hpp>
#include "compare_types.hpp"
#include "dump_manifest.hpp"
#include "option_regex.hpp"

PROBE_BEGIN_NAMESPACE
namespace analysis {

struct compare_settings {
  tolerance tol{-1, -1};  // negative fields: the dtype default (default_tolerance)
  struct tol_override {
    std::string pattern;
    detail::regex re;
    tolerance tol{-1, -1};
  };
  std::vector<tol_override> overrides;  // by key, partial match; the last one matching wins
  check_settings check;
  bool has_step = false;
  int64_t step = 0;
  unsigned threads = 0;  // 0: one per core, at most 8
  // Exit 0 when every failure is rounding-level (compare_findings.hpp): a gate that accepts
  // what -O3 or another summation order changes, and nothing more.
  bool accept_rounding = false;
  // Look for copies of part of an output by reading values again (compare_part_copy.hpp);
  // off: by hashes and statistics only.
  bool copies_by_value = true;
  // Called from the calling thread every progress_interval_ms while values are compared
  // (a compare that ends sooner never calls it); done_bytes counts both sides.
  void (*progress)(void* context, uint64_t done_bytes, uint64_t total_bytes) = nullptr;
  void* progress_context = nullptr;
  unsigned progress_interval_ms = 100;

  // "RE=ATOL,RTOL" (either number may be left empty: the default stays).
  bool add_override(const std::string& spec, std::string* error) {
    const size_t eq = spec.rfind('=');
    if (eq == std::string::npos || eq == 0) {
      *error = "--tol takes 'REGEX=ATOL,RTOL', not '" + spec + "'";
      return false;
    }
    tol_override o;
    o.pattern = spec.substr(0, eq);
    if (!compile_option_regex("--tol", o.pattern, &o.re, error)) return false;
    const std::string nums = spec.substr(eq + 1);
    const size_t comma = nums.find(',');
    const std::string at = nums.substr(0, comma), rt = comma == std::string::npos ? "" : nums.substr(comma + 1);
    auto parse = [&](const std::string& t, double* out) {
      if (t.empty()) return true;
      char* end = nullptr;
      const double v = strtod(t.c_str(), &end);
      if (*end || !(v >= 0) || v > 1e300) return false;
      *out = v;
      return true;
    };
    if ((at.empty() && rt.empty()) || !parse(at, &o.tol.atol) || !parse(rt, &o.tol.rtol)) {
      *error = "--tol takes 'REGEX=ATOL,RTOL' with numbers >= 0, not '" + spec + "'";
      return false;
    }
    overrides.push_back(std::move(o));
    return true;
  }

  // The tolerance asked for a key (negative fields: dtype default).
  tolerance tolerance_for(const std::string& key) const {
    tolerance t = tol;
    for (const tol_override& o : overrides)
      if (o.re.search(key)) {
        if (o.tol.atol >= 0) t.atol = o.tol.atol;
        if (o.tol.rtol >= 0) t.rtol = o.tol.rtol;
      }
    return t;
  }
};

// One side of a pair.
struct pair_side {
  bool present = false;
  std::string own_key;  // the key in this side's manifest when pairing renamed it ("": the pair's)
  std::string file;  // data file; "" when the record has none
  links at_last = links::refuse;  // follow: a file the user named, or found in a folder of .npy
  dtype type = dtype::invalid;
  int ndim = 0;
  int64_t shape[max_dims] = {};
  uint64_t seq = 0;
  size_t line = 0;   // its manifest line (0: not from a manifest)
  std::string hash;  // content hash from the manifest ("" when absent)
  std::string stale_producer, stale_last_op;  // written outside any op after this producer
  std::string within;  // a worker's input no op wrote: the enclosing op's input holding it
  uint64_t within_at = 0;
  std::string prior;  // implicit inputs recorded after the kernel: "producers" or "unknown"
  bool have_stats = false;
  health stats;  // from the manifest
  // from the .npy header
  size_t data_offset = 0;
  bool swap = false, fortran = false;
};

struct compared_pair {
  std::string key;  // stable key (dumps) or relative path (folders of .npy)
  std::string op, type, slot, producer;
  uint64_t seq = 0;  // A's sequence number (B's for a tensor only in B)
  uint64_t occurrence = 0, parent = 0;
  uint64_t lane = 0;       // the op's thread lineage in A (B's for a tensor only in B)
  bool ambiguous = false;  // which op of the other run this is cannot be told (compare_lanes.hpp)
  int64_t step = 0;
  bool is_input = false;
  bool inout = false, implicit = false;  // an input that is the prior state of an output slot
  std::vector<dump_producer> producers;  // inputs: the latest writer of each byte range (A's, else B's)
  size_t line = 0;  // manifest line, to keep a stable order within an op
  pair_side a, b;
  pair_status status = pair_status::ok;
  std::string why;  // shape, dtype, no_data
  // One-sided because the other run's dump stopped at a budget before it (compare_budget.hpp):
  // no data, not a difference. Says whose budget, and which ("past A's dump budget
  // (--probe_dump_max_ops=2 reached)"); "" if not.
  std::string past_budget;
  tensor_metrics metrics;
  bool by_stats = false;  // no data on a side: judged by the manifest's statistics
  bool by_producers = false;  // an implicit prior state without data: its producers' verdict
  std::string tol_note;   // the tolerance was tightened: the same bytes are judged once
  // From a second look at a mismatching pair (compare_details.hpp); negative: not measured.
  double scale = -1;       // max |b| of the finite reference values (max |a| when those are all 0)
  double reference_scale = -1;  // max |b| alone: 0 when the reference is all zeros (-1: not read)
  int64_t fresh_fail = -1; // outputs of an in-place slot: failing elements whose prior state passed
  int slice_dim = -1;      // every failure lies at index slice_index of this dimension
  int64_t slice_index = 0;
  // |a-b| relative to the tensor's scale: the size of the error, whatever the tolerance
  double scaled_error() const {
    return scale > 0 ? metrics.max_abs / scale : metrics.max_abs > 0 ? metrics.max_abs : 0;
  }
  // whether the input is the earlier state of what the op overwrites
  bool prior_state() const { return is_input && (inout || implicit); }

  std::string op_key() const { return op + "#" + std::to_string(occurrence); }
};

namespace compare_inputs {

inline void fill_side(const dump_tensor& t, pair_side* s) {
  s->present = true;
  s->own_key = t.own_key;
  s->file = t.file;
  s->type = t.elem_type;
  s->ndim = t.ndim;
  for (int i = 0; i < t.ndim; ++i) s->shape[i] = t.shape[i];
  s->seq = t.seq;
  s->line = t.line;
  s->hash = t.hash;
  s->stale_producer = t.stale_producer;
  s->stale_last_op = t.stale_last_op;
  s->within = t.within;
  s->within_at = t.within_at;
  s->prior = t.prior;
  s->have_stats = t.have_stats;
  s->stats = t.stats;
}

inline bool pair_order(const compared_pair& x, const compared_pair& y) {
  if (x.seq != y.seq) return x.seq < y.seq;
  if (x.is_input != y.is_input) return x.is_input;
  return x.line < y.line;
}

// Pairs the tensor records of two runs by key, once compare_lanes.hpp has given B's ops the
// keys of the same computations in A (only those of the step, if one is asked;
// *outside gets the step of every output key the step leaves out).
inline std::vector<compared_pair> pair_runs(const dump_run& a, const dump_run& b, const compare_settings& s,
                                            std::vector<std::string>* notes,
                                            std::unordered_map<std::string, int64_t>* outside = nullptr) {
  std::vector<compared_pair> pairs;
  std::unordered_map<std::string, size_t> index;
  pairs.reserve(a.tensors.size() + b.tensors.size());  // pages not used are never touched
  index.reserve(a.tensors.size() + b.tensors.size());
  auto take = [&](const dump_run& run, bool is_a) {
    for (const dump_tensor& t : run.tensors) {
      if (s.has_step && t.step != s.step) {
        if (outside && !t.is_input) outside->emplace(t.key, t.step);
        continue;
      }
      auto it = index.find(t.key);
      if (it == index.end()) {
        it = index.emplace(t.key, pairs.size()).first;
        pairs.emplace_back();
        compared_pair& p = pairs.back();
        p.key = t.key;
        p.op = t.op;
        p.type = t.type;
        p.slot = t.slot;
        p.producer = t.producer;
        p.seq = t.seq;
        p.occurrence = t.occurrence;
        p.parent = t.parent;
        p.lane = t.lane;
        p.step = t.step;
        p.is_input = t.is_input;
        p.inout = t.inout;
        p.implicit = t.implicit;
        p.producers = t.producers;
        p.line = t.line;
      }
      compared_pair& p = pairs[it->second];
      p.ambiguous = p.ambiguous || t.ambiguous;
      pair_side& side = is_a ? p.a : p.b;
      if (side.present) {
        notes->push_back("key " + t.key + " appears twice in " + run.dir + "/manifest.jsonl; the first is used");
        continue;
      }
      fill_side(t, &side);
    }
  };
  take(a, true);
  take(b, false);
  // Sorted by index: a compared_pair is large, and moving each one log n times cost more than
  // reading it. A's records usually come in order already.
  if (std::is_sorted(pairs.begin(), pairs.end(), pair_order)) return pairs;
  std::vector<size_t> order(pairs.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](size_t x, size_t y) { return pair_order(pairs[x], pairs[y]); });
  std::vector<compared_pair> sorted;
  sorted.reserve(pairs.size());
  for (size_t i : order) sorted.push_back(std::move(pairs[i]));
  return sorted;
}

inline bool ends_with(const std::string& s, const char* tail) {
  const size_t n = strlen(tail);
  return s.size() >= n && s.compare(s.size() - n, n, tail) == 0;
}

namespace find_impl {

using folder_id = std::pair<dev_t, ino_t>;

inline bool walk(const std::string& dir, const std::string& rel, std::vector<folder_id>* path,
                 std::set<folder_id>* seen, std::vector<std::string>* out, std::string* error) {
  struct stat st;
  if (::stat(dir.c_str(), &st) != 0) return true;  // vanished meanwhile: nothing in it
  const folder_id id{st.st_dev, st.st_ino};
  if (std::find(path->begin(), path->end(), id) != path->end()) {
    *error = dir + ": a symbolic link loop (this folder contains itself)";
    return false;
  }
  // A folder reached again by another link is listed once: links cannot multiply the work.
  if (!seen->insert(id).second) return true;
  if (path->size() >= 64) {
    *error = dir + ": folders nested more than 64 deep";
    return false;
  }
  path->push_back(id);
  for (const std::string& name : list_dir(dir)) {
    const std::string p = join(dir, name), r = rel.empty() ? name : rel + "/" + name;
    if (is_dir(p)) {
      if (!walk(p, r, path, seen, out, error)) return false;
    } else if (ends_with(name, ".npy")) {
      out->push_back(r);
    }
  }
  path->pop_back();
  return true;
}

}  // namespace find_impl

// Every .npy file under dir, as paths relative to it, sorted. Hidden entries are skipped;
// symbolic links are followed, each folder listed once. False with *error for a link loop.
inline bool find_npy(const std::string& dir, std::vector<std::string>* out, std::string* error) {
  std::vector<find_impl::folder_id> path;
  std::set<find_impl::folder_id> seen;
  out->clear();
  if (!find_impl::walk(dir, "", &path, &seen, out, error)) return false;
  std::sort(out->begin(), out->end());
  return true;
}

// The data files a dump's manifests name (a record's "file", or the snapshot file that holds
// a record's data), as paths relative to the dump folder, sorted: what belongs to the run, not
// whatever else lies in the folder (snapshots beside .npy files, an earlier run's files).
// False with *error when a manifest cannot be read; the runs' notes go to *notes.
inline bool manifest_files(const std::string& dir, std::vector<std::string>* out, std::vector<std::string>* notes,
                           std::string* error) {
  std::vector<dump_run> runs;
  if (!read_dump(dir, &runs, error)) return false;
  out->clear();
  for (const dump_run& run : runs) {
    notes->insert(notes->end(), run.notes.begin(), run.notes.end());
    const std::string prefix = join(run.dir, "");
    for (const dump_tensor& t : run.tensors)
      // same_as: a constant dumped once, its file is the earlier record's (listed there)
      if (!t.file.empty() && t.same_as.empty() && t.file.compare(0, prefix.size(), prefix) == 0)
        out->push_back((run.name.empty() ? std::string() : run.name + "/") + t.file.substr(prefix.size()));
  }
  std::sort(out->begin(), out->end());
  out->erase(std::unique(out->begin(), out->end()), out->end());
  return true;
}

// Pairs two folders of .npy files by relative path; the order is the paths' (dump file
// names start with the op's sequence number, so that is execution order for dumps). A side
// given its files (named_a, named_b: a dump's, manifest_files) pairs those alone, and its
// links are not followed (a dump's files are read as compare reads a dump's); the other
// side's are every .npy file under its folder.
inline bool pair_folders(const std::string& da, const std::string& db, std::vector<compared_pair>* pairs,
                         std::string* error, const std::vector<std::string>* named_a = nullptr,
                         const std::vector<std::string>* named_b = nullptr) {
  std::vector<std::string> fa, fb;
  if (named_a) fa = *named_a;
  else if (!find_npy(da, &fa, error)) return false;
  if (named_b) fb = *named_b;
  else if (!find_npy(db, &fb, error)) return false;
  std::vector<std::string> all = fa;
  all.insert(all.end(), fb.begin(), fb.end());
  std::sort(all.begin(), all.end());
  all.erase(std::unique(all.begin(), all.end()), all.end());
  pairs->clear();
  uint64_t seq = 0;
  for (const std::string& rel : all) {
    compared_pair p;
    p.key = rel;
    p.seq = ++seq;
    p.line = static_cast<size_t>(seq);
    if (std::binary_search(fa.begin(), fa.end(), rel)) {
      p.a.present = true;
      p.a.file = join(da, rel);
      p.a.at_last = named_a ? links::refuse : links::follow;
    }
    if (std::binary_search(fb.begin(), fb.end(), rel)) {
      p.b.present = true;
      p.b.file = join(db, rel);
      p.b.at_last = named_b ? links::refuse : links::follow;
    }
    pairs->push_back(std::move(p));
  }
  return true;
}

// Pairs two folders without a manifest on both sides (compare_paths' "npy folders"). A dump
// against a folder of .npy files: the dump's side is the files its manifest names
// (docs/dump.md: a folder may hold more than the run), paired by path with the others. False
// with *error when a manifest cannot be read or a side has no file.
inline bool pair_folder_sides(const std::string& a, const std::string& b, std::vector<compared_pair>* pairs,
                              std::vector<std::string>* notes, std::string* error) {
  const bool dump_side[2] = {has_manifest(a), has_manifest(b)};
  std::vector<std::string> named[2];
  for (int side = 0; side < 2; ++side)
    if (dump_side[side] && !manifest_files(side ? b : a, &named[side], notes, error)) return false;
  if (dump_side[0] || dump_side[1])
    notes->push_back("only one side has a manifest: the files it names are paired by path with the other "
                     "folder's .npy files, without graph answers");
  if (!pair_folders(a, b, pairs, error, dump_side[0] ? &named[0] : nullptr, dump_side[1] ? &named[1] : nullptr))
    return false;
  for (int side = 0; side < 2; ++side) {
    bool any = false;
    for (const compared_pair& p : *pairs) any = any || (side ? p.b.present : p.a.present);
    if (!any) {
      *error = (side ? b : a) + (dump_side[side] ? ": its manifest names no data file"
                                                 : ": no manifest.jsonl and no .npy files in it");
      return false;
    }
  }
  return true;
}

// An implicit input recorded after its kernel has no data: its value is what its producers
// recorded, so it takes their verdict (all of them match: it matches; one differs: it
// differs). Unknown (no_data) when some bytes had no recorded producer or a producer was not
// compared. Runs after the outputs are compared.
inline void judge_by_producers(std::vector<compared_pair>* pairs) {
  std::unordered_map<std::string, const compared_pair*> outputs;
  for (const compared_pair& p : *pairs)
    if (!p.is_input) outputs.emplace(p.key, &p);
  for (compared_pair& p : *pairs) {
    if (!p.implicit || !p.a.present || !p.b.present || (p.a.prior.empty() && p.b.prior.empty())) continue;
    if (!p.a.file.empty() && !p.b.file.empty()) continue;  // both sides have data: compared already
    if (p.a.prior == "unknown" || p.b.prior == "unknown" || p.producers.empty()) {
      p.why = "its prior state was not recorded (some bytes had no recorded producer)";
      continue;
    }
    std::string differs, unknown;
    for (const dump_producer& d : p.producers) {
      auto it = outputs.find(d.key);
      const pair_status st = it == outputs.end() ? pair_status::no_data : it->second->status;
      if (status_mismatch(st) && differs.empty()) differs = d.key;
      else if (st != pair_status::ok && !status_mismatch(st) && unknown.empty()) unknown = d.key;
    }
    p.by_producers = true;
    if (!differs.empty()) {
      p.status = pair_status::mismatch;
      p.why = "judged by its producers: " + differs + " differs";
    } else if (unknown.empty()) {
      p.status = pair_status::ok;
      p.why = "judged by its producers: they match (its prior state is what they recorded)";
    } else {
      p.why = "judged by its producers: " + unknown + " was not compared";
    }
    p.by_stats = false;
  }
}

}  // namespace compare_inputs
// For each input pair, the input of an op enclosing its op that holds its bytes (a worker
// reading its rows of the input of the op it works for), as both runs' manifests say
// ("within"); SIZE_MAX: none.
inline std::vector<size_t> enclosing_inputs(const std::vector<compared_pair>& pairs) {
  std::vector<size_t> out(pairs.size(), SIZE_MAX);
  std::unordered_map<std::string, size_t> input_by_key;
  for (size_t i = 0; i < pairs.size(); ++i) {
    const compared_pair& p = pairs[i];
    if (!p.is_input || p.a.within.empty() || p.a.within != p.b.within || p.a.within_at != p.b.within_at) continue;
    if (input_by_key.empty())
      for (size_t j = 0; j < pairs.size(); ++j)
        if (pairs[j].is_input) input_by_key.emplace(pairs[j].key, j);
    auto it = input_by_key.find(p.a.within);
    if (it != input_by_key.end() && it->second != i) out[i] = it->second;
  }
  return out;
}

}  // namespace analysis
PROBE_END_NAMESPACE
