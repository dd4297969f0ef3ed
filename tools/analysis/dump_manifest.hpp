// Reading what the dump wrote: manifest.jsonl records, and the run folders of a dump
// directory (one manifest at the top, or one per rank_NNNN / host_pid subfolder).
//
//   probe::analysis::dump_run run;
//   std::string err;
//   if (!probe::analysis::read_manifest("/tmp/dump", &run, &err)) ...   // err names the file and line
//   for (const auto& t : run.tensors) ... t.key, t.seq, t.producer, t.stats ...
//
// A killed run's manifest is a readable prefix: a last line without its newline that does
// not parse is dropped with a note; a bad line anywhere else is an error. Standalone header.
#pragma once
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include <algorithm>
#include <iterator>
#include <map>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include <probe/core/stats.hpp>
#include <probe/formats/json.hpp>
#include "dump_messages.hpp"
#include "json_tape.hpp"
#include "npy_file.hpp"
#include <probe/util/text.hpp>

PROBE_BEGIN_NAMESPACE
namespace analysis {

// A byte range of an input and the op output that last wrote it ("producers").
struct dump_producer {
  std::string key;
  uint64_t bytes = 0, offset = 0;
  uint64_t at = 0;  // where these bytes start in the producer's output
};

// One "tensor" record of a manifest.
struct dump_tensor {
  uint64_t seq = 0;
  int64_t step = 0;
  std::string op, type;
  uint64_t occurrence = 0;
  uint64_t parent = 0;  // 0: not nested
  // The thread lineage ("lane"; old dumps: the thread) and the op's occurrence in it (old
  // dumps: unknown, has_lane_occurrence false). compare_lanes.hpp pairs lanes across runs.
  uint64_t thread = 0, lane = 0, lane_occurrence = 0;
  bool has_lane_occurrence = false;
  bool ambiguous = false;  // set by the pairing: which op of the other run this is cannot be told
  bool is_input = false;
  std::string slot, key, producer;  // producer: the output key an input came from ("" if none)
  std::string own_key;  // the key in its own manifest, when pairing gave it another ("": key)
  dtype elem_type = dtype::invalid;
  std::string dtype_text;  // as written (kept when probe does not know the name)
  int ndim = 0;
  int64_t shape[max_dims] = {};
  std::string file;  // path of the data file (joined with the run folder); "" when none
  std::string same_as;  // the record named an earlier file ("same_as"); `file` is that file
  std::string hash;     // content hash of the bytes dumped ("" in old dumps)
  bool inout = false;     // op.inout: the slot's state before (input) and after (output)
  bool implicit = false;  // an input the library added: the prior state of an overwritten output
  // An implicit input recorded after its kernel, never read: "producers" (its value is what
  // they recorded) or "unknown"; "" otherwise.
  std::string prior;
  std::vector<dump_producer> producers;  // inputs: the latest writer of each byte range
  std::string stale_producer, stale_last_op;  // inputs: written outside any op after this producer
  // a worker's input no op wrote: the input of an enclosing op holding its bytes, and where
  std::string within;
  uint64_t within_at = 0;
  bool have_stats = false;
  health stats;
  std::string note;
  double wall_time = 0;  // when it was recorded (seconds since the epoch; 0: not said)
  size_t line = 0;  // 1-based line in the manifest

  // "op#occurrence": one execution of an op.
  std::string op_key() const { return op + "#" + std::to_string(occurrence); }
};

// An "attrs" record: the attributes an op execution was given (op.attr).
struct dump_attrs {
  uint64_t seq = 0;
  std::string key;     // "op#occurrence"
  json::value attrs;   // an object
};

// "eps=1e-05 axis=1 mode=\"rows\"": each member as name=JSON, names made printable.
inline std::string attrs_text(const json::value& attrs) {
  std::string s;
  for (size_t i = 0; i < attrs.size(); ++i) {
    if (i) s += ' ';
    s += detail::printable(attrs.key(i)) + "=" + json::to_string(attrs[i]);
  }
  return s;
}

// One run folder: its manifest's records.
struct dump_run {
  std::string dir;       // the folder holding manifest.jsonl
  std::string name;      // "" for a single run, else the subfolder name (rank_0003)
  bool has_run_record = false, has_end = false;
  // The program and modes the run record names (build, program file, reference, reproducible);
  // "" when it names no program file. Equal in two dumps: two runs of one build.
  std::string build_identity;
  std::string process;  // host and pid: dumps one process wrote (a test's runs) are no two runs
  // The run record's environment: variable name -> a hash of its value (older dumps: none).
  bool has_environment = false;
  std::map<std::string, std::string> environment;
  std::vector<dump_tensor> tensors;
  std::vector<dump_attrs> attrs;
  std::vector<std::string> notes;  // budget records, a dropped partial last line
  // A "budget" record: dumping stopped early, at op budget_seq (0: not said), for this reason.
  // What the run did from then on was not recorded: compare calls it no data, not a difference.
  bool stopped_early = false;
  uint64_t budget_seq = 0;
  std::string budget_reason;
  std::vector<std::string> op_notes;  // "note" records: one line about an op
  int rank = -1, world = 0;  // the run record's MPI rank and world size (-1, 0: not under MPI)
  double start_time = 0;     // the run record's, seconds since the epoch (0: none)
  std::vector<dump_message> messages;  // probe::mpi's records (dump_messages.hpp)
};

inline std::string join(const std::string& dir, const std::string& name) {
  if (dir.empty()) return name;
  return dir.back() == '/' ? dir + name : dir + "/" + name;
}

inline bool is_dir(const std::string& p) {
  struct stat st;
  return ::stat(p.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}
inline bool is_file(const std::string& p) {
  struct stat st;
  return ::stat(p.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

// Why `p` can be neither read as a file nor listed as a folder ("" when it can be).
inline std::string path_problem(const std::string& p) {
  struct stat st;
  if (::stat(p.c_str(), &st) != 0) return p + ": no such file or folder";
  if (!S_ISDIR(st.st_mode) && !S_ISREG(st.st_mode)) return p + ": not a regular file or a folder";
  return std::string();
}

inline dtype dtype_from_name(const std::string& s) {
  for (int i = 1; i < dtype_count; ++i)
    if (s == dtype_name(static_cast<dtype>(i))) return static_cast<dtype>(i);
  return dtype::invalid;
}

namespace manifest_impl {

inline double number_or_nan(json_tape::ref v) {
  return v.is_number() ? v.as_double() : __builtin_nan("");
}

inline bool read_stats(json_tape::ref s, health* h) {
  if (!s.is_object()) return false;
  static constexpr std::string_view names[] = {"count", "finite", "min", "max", "mean", "std", "nan",
                                               "posinf", "neginf", "zero", "subnormal", "negative", "positive"};
  json_tape::ref m[std::size(names)];
  s.pick(names, m);
  h->valid = true;
  h->count = m[0].as_int();
  h->finite = m[1].as_int();
  h->min = number_or_nan(m[2]);
  h->max = number_or_nan(m[3]);
  h->mean = number_or_nan(m[4]);
  h->std = number_or_nan(m[5]);
  h->nan = m[6].as_int();
  h->pos_inf = m[7].as_int();
  h->neg_inf = m[8].as_int();
  h->zero = m[9].as_int();
  h->subnormal = m[10].as_int();
  h->negative = m[11].as_int();
  h->positive = m[12].as_int();
  return true;
}

// What identifies the build a run record comes from: the program file (path, size, time),
// how probe was built into it, and the modes the engine was asked for.
inline std::string build_identity(const json::value& run) {
  const json::value& b = run.get("build");
  if (!b.is_object() || b.get_string("program").empty()) return std::string();
  std::string id = b.get_string("program") + "\n" + std::to_string(b.get_int("program_bytes")) + "\n" +
                   std::to_string(b.get_int("program_mtime")) + "\n" + b.get_string("compiler") + "\n" +
                   b.get_string("mode") + "\n";
  for (const char* mode : {"reference", "reproducible"})
    id += run.get(mode).is_bool() && run.get(mode).as_bool() ? "1" : "0";
  const json::value& argv = run.get("argv");
  for (size_t i = 0; i < argv.size(); ++i) id += "\n" + argv[i].as_string();
  return id;
}

// A record's shape: non-negative integer dimensions whose product (over the non-zero ones, as
// numpy counts) fits int64_t in elements and in bytes, so that every reader may multiply it out.
inline bool read_shape(json_tape::ref shape, dump_tensor* t, std::string* why) {
  if (shape.size() > static_cast<size_t>(max_dims)) {
    *why = "\"shape\" has " + std::to_string(shape.size()) + " dimensions (at most " + std::to_string(max_dims) + ")";
    return false;
  }
  t->ndim = static_cast<int>(shape.size());
  uint64_t product = t->elem_type == dtype::invalid ? 1 : dtype_size(t->elem_type);
  json_tape::ref d = shape.first_child();
  for (int i = 0; i < t->ndim; ++i, d = d.next_sibling(shape)) {
    if (!d.is_integer() || d.as_int() < 0) {
      *why = "\"shape\" holds " + (d.is_integer() ? std::to_string(d.as_int()) : std::string("a value")) +
             ": dimensions are non-negative integers";
      return false;
    }
    t->shape[i] = d.as_int();
    if (t->shape[i] != 0 && (__builtin_mul_overflow(product, static_cast<uint64_t>(t->shape[i]), &product) ||
                             product > static_cast<uint64_t>(INT64_MAX))) {
      *why = "\"shape\" is too large: its element count or byte size overflows";
      return false;
    }
  }
  return true;
}

// One tensor record; false with *why when a field the analysis needs is missing.
inline bool read_tensor(json_tape::ref v, const std::string& dir, dump_tensor* t, std::string* why) {
  // In the order the library writes them (the lookup is quickest so).
  enum : size_t { seq, step, op, type, occurrence, parent, thread, lane, lane_occurrence, io, inout, implicit, prior,
                  slot, key, producer, producers, stale, within, dtype_text, shape, same_as, file, hash, stats,
                  note, wall_time, field_count };
  static constexpr std::string_view names[field_count] = {
      "seq", "step", "op", "type", "occurrence", "parent", "thread", "lane",
      "lane_occurrence", "io", "inout", "implicit", "prior", "slot", "key", "producer", "producers", "stale", "within", "dtype",
      "shape", "same_as", "file", "hash", "stats", "note", "wall_time"};
  json_tape::ref m[field_count];
  v.pick(names, m);
  if (!m[key].is_string() || !m[seq].is_integer() || !m[io].is_string()) {
    *why = "a tensor record needs \"key\", \"seq\" and \"io\"";
    return false;
  }
  t->key = m[key].as_string();
  t->seq = static_cast<uint64_t>(m[seq].as_int());
  t->step = m[step].as_int();
  t->op = m[op].as_string();
  t->type = m[type].as_string();
  t->occurrence = static_cast<uint64_t>(m[occurrence].as_int());
  t->parent = static_cast<uint64_t>(m[parent].as_int());
  t->thread = static_cast<uint64_t>(m[thread].as_int());
  t->lane = m[lane].is_integer() ? static_cast<uint64_t>(m[lane].as_int()) : t->thread;
  t->has_lane_occurrence = m[lane_occurrence].is_integer();
  if (t->has_lane_occurrence) t->lane_occurrence = static_cast<uint64_t>(m[lane_occurrence].as_int());
  t->is_input = m[io].as_string() == "in";
  t->slot = m[slot].as_string();
  t->producer = m[producer].as_string();
  t->dtype_text = m[dtype_text].as_string();
  t->elem_type = dtype_from_name(t->dtype_text);
  if (!read_shape(m[shape], t, why)) return false;
  // A constant dumped once: "same_as" names the earlier record's file, read from there.
  t->same_as = m[same_as].as_string();
  const std::string_view data = m[file].as_string().empty() ? m[same_as].as_string() : m[file].as_string();
  if (!data.empty()) {
    if (data[0] == '/' || data == ".." || data.compare(0, 3, "../") == 0 || data.find("/../") != std::string_view::npos ||
        (data.size() >= 3 && data.compare(data.size() - 3, 3, "/..") == 0)) {
      *why = "file name '" + std::string(data) + "' leaves the dump folder";
      return false;
    }
    t->file = join(dir, std::string(data));
  }
  t->hash = m[hash].as_string();
  t->inout = m[inout].as_bool();
  t->implicit = m[implicit].as_bool();
  t->prior = m[prior].as_string();
  for (json_tape::ref p = m[producers].first_child(); p; p = p.next_sibling(m[producers])) {
    if (!p.is_object() || p.get_string("key").empty()) continue;
    dump_producer d;
    d.key = p.get_string("key");
    d.bytes = static_cast<uint64_t>(p.get_int("bytes"));
    d.offset = static_cast<uint64_t>(p.get_int("offset"));
    d.at = static_cast<uint64_t>(p.get_int("at"));
    t->producers.push_back(std::move(d));
  }
  // Old dumps: the single producer stands for the whole input.
  if (t->producers.empty() && !t->producer.empty()) t->producers.push_back(dump_producer{t->producer, 0, 0, 0});
  if (m[stale].is_object()) {
    t->stale_producer = m[stale].get_string("producer");
    t->stale_last_op = m[stale].get_string("last_op_before");
  }
  if (m[within].is_object() && !m[within].get_string("key").empty()) {
    t->within = m[within].get_string("key");
    t->within_at = static_cast<uint64_t>(m[within].get_int("at"));
  }
  t->have_stats = read_stats(m[stats], &t->stats);
  if (t->have_stats) t->stats.type = t->elem_type;
  t->note = m[note].as_string();
  if (m[wall_time].is_number()) t->wall_time = m[wall_time].as_double();
  return true;
}

}  // namespace manifest_impl

// Parses the text of a manifest (the file `path` in run folder `dir`) into *run. False with
// *error naming the file and line.
inline bool parse_manifest(const std::string& text, const std::string& dir, const std::string& path, dump_run* run,
                           std::string* error) {
  run->dir = dir;
  size_t line_no = 0;
  json_tape tape;  // tensor records, most of a manifest, are read from a flat tape
  // Room for the tensor records the library wrote (each line begins so): growing the vector
  // would move every record read so far. Other writers' lines are only not counted ahead.
  static const char k_tensor_line[] = "{\"record\":\"tensor\"";
  size_t tensor_lines = 0;
  for (const char *p = text.data(), *end = p + text.size();
       (p = static_cast<const char*>(memmem(p, static_cast<size_t>(end - p), k_tensor_line, sizeof k_tensor_line - 1)));
       p += sizeof k_tensor_line - 1)
    ++tensor_lines;
  run->tensors.reserve(run->tensors.size() + tensor_lines);
  for (size_t at = 0; at < text.size();) {
    size_t end = text.find('\n', at);
    const bool last_partial = end == std::string::npos;
    if (last_partial) end = text.size();
    ++line_no;
    const char* line = text.data() + at;
    const size_t len = end - at;
    at = end + 1;
    if (len == 0 || (len == 1 && line[0] == '\r')) continue;
    json::value v;
    std::string why;
    if (!tape.parse(line, len) || !tape.root().is_object()) {
      json::parse(line, len, v, &why);  // says why
      if (last_partial) {  // a run killed while writing its last line
        run->notes.push_back(path + ": line " + std::to_string(line_no) + " is incomplete (the run was cut short); ignored");
        break;
      }
      // The parser counts lines within the one it was given: its "line 1, " would read as a
      // second line number beside the manifest's.
      if (why.compare(0, 8, "line 1, ") == 0) why.erase(0, 8);
      *error = path + ":" + std::to_string(line_no) + ": " + (why.empty() ? "not a JSON object" : why);
      return false;
    }
    const std::string kind(tape.root().get_string("record"));
    if (kind == "tensor") {
      run->tensors.emplace_back();
      dump_tensor& t = run->tensors.back();
      if (!manifest_impl::read_tensor(tape.root(), dir, &t, &why)) {
        run->tensors.pop_back();
        *error = path + ":" + std::to_string(line_no) + ": " + why;
        return false;
      }
      t.line = line_no;
      continue;
    }
    v = tape.root().to_value();  // the few other records keep a json::value
    if (kind == "attrs") {
      dump_attrs a;
      a.seq = static_cast<uint64_t>(v.get_int("seq"));
      a.key = v.get_string("key");
      a.attrs = v.get("attrs");
      if (a.attrs.is_object()) run->attrs.push_back(std::move(a));
    } else if (kind == "run") {
      run->has_run_record = true;
      run->build_identity = manifest_impl::build_identity(v);
      run->process = v.get_string("host") + ":" + std::to_string(v.get_int("pid"));
      const json::value& env = v.get("environment");
      run->has_environment = env.is_object();
      for (size_t i = 0; i < env.size(); ++i) run->environment[env.key(i)] = env[i].as_string();
      if (v.get("rank").is_integer()) run->rank = static_cast<int>(v.get_int("rank"));
      run->world = static_cast<int>(v.get_int("world"));
      if (v.get("start_time").is_number()) run->start_time = v.get("start_time").as_double();
    } else if (kind == "message" || kind == "collective") {
      dump_message m;
      if (read_message(v, kind == "collective", &m)) run->messages.push_back(std::move(m));
    } else if (kind == "end") {
      run->has_end = true;
    } else if (kind == "note") {
      run->op_notes.push_back(v.get_string("op") + ": " + v.get_string("text"));
    } else if (kind == "budget") {
      run->notes.push_back("dumping stopped early: " + v.get_string("reason"));
      if (!run->stopped_early) {  // the first stop is the one that counts
        run->stopped_early = true;
        run->budget_reason = v.get_string("reason");
        if (v.get("seq").is_integer() && v.get_int("seq") > 0) run->budget_seq = static_cast<uint64_t>(v.get_int("seq"));
      }
    }
  }
  if (!run->has_run_record && run->tensors.empty()) {
    *error = path + ": no probe records (not a probe manifest?)";
    return false;
  }
  if (!run->has_end) run->notes.push_back(path + ": no end record (the run did not finish, or is still running)");
  return true;
}

// Sorted names of a folder's entries (no hidden ones).
inline std::vector<std::string> list_dir(const std::string& dir) {
  std::vector<std::string> out;
  if (DIR* d = opendir(dir.c_str())) {
    while (dirent* e = readdir(d))
      if (e->d_name[0] != '.') out.push_back(e->d_name);
    closedir(d);
  }
  std::sort(out.begin(), out.end());
  return out;
}

// Tensors the manifest gives no file for, in a dump written with snapshots only: their data
// is in snapshots/op_*/ (snapshot.json names each tensor's key and file). A snapshot that
// cannot be read is skipped with a note: the tensor stays without data.
inline void attach_snapshot_files(dump_run* run) {
  std::unordered_map<std::string, size_t> missing;
  for (size_t i = 0; i < run->tensors.size(); ++i)
    if (run->tensors[i].file.empty()) missing.emplace(run->tensors[i].key, i);
  const std::string snaps = join(run->dir, "snapshots");
  if (missing.empty() || !is_dir(snaps)) return;
  for (const std::string& name : list_dir(snaps)) {
    const std::string folder = join(snaps, name), path = join(folder, "snapshot.json");
    struct stat st;
    if (::lstat(folder.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) continue;  // a link leads out of the dump
    if (::lstat(path.c_str(), &st) != 0) continue;  // not a snapshot; anything else is read below
    std::string text, error;
    json::value doc;
    if (!read_regular_file(path, &text, &error, size_t{16} << 20) || !json::parse(text.data(), text.size(), doc, &error)) {
      run->notes.push_back(path + ": unreadable snapshot, skipped" + (error.empty() ? "" : ": " + error));
      continue;
    }
    for (const char* list : {"inputs", "outputs"}) {
      const json::value& items = doc.get(list);
      for (size_t i = 0; i < items.size(); ++i) {
        const std::string key = items[i].get_string("key"), file = items[i].get_string("file");
        auto it = missing.find(key);
        // a plain name inside the snapshot folder, nothing else
        if (it == missing.end() || file.empty() || file.find('/') != std::string::npos || file == "..") continue;
        run->tensors[it->second].file = join(folder, file);
        missing.erase(it);
      }
    }
  }
}

// Reads dir/manifest.jsonl into *run. False with *error naming the file (and line).
inline bool read_manifest(const std::string& dir, dump_run* run, std::string* error) {
  const std::string path = join(dir, "manifest.jsonl");
  std::string text;
  if (!read_regular_file(path, &text, error) || !parse_manifest(text, dir, path, run, error)) return false;
  attach_snapshot_files(run);
  return true;
}

// Whether dir has an entry named manifest.jsonl, of any kind: a FIFO or a link there makes
// the folder a dump whose manifest cannot be read (said so), not a folder of .npy files.
inline bool manifest_in(const std::string& dir) {
  struct stat st;
  return ::lstat(join(dir, "manifest.jsonl").c_str(), &st) == 0;
}

// Whether path holds a dump: its own manifest, or subfolders with one.
inline bool has_manifest(const std::string& dir) {
  if (manifest_in(dir)) return true;
  for (const std::string& name : list_dir(dir))
    if (manifest_in(join(dir, name))) return true;
  return false;
}

// The runs of a dump folder: itself when it holds manifest.jsonl, else each subfolder that
// does (rank_0000, rank_0001, ... or host_pid). False with *error when there is none or a
// manifest is corrupt.
// A dump folder an MPI job reuses keeps the rank folders an earlier, larger job wrote past
// this job's ranks (each rank remakes its own folder only). The job is the one the latest run
// record belongs to (the lowest rank among equals, as with records without a start time): rank
// folders of another world size, or of a rank it does not have, are an earlier job's and are
// left out, with a note.
// "rank_0004, rank_0005, ... (9 in all)": the first four of a list of folders, for a note.
inline std::string folder_names(const std::vector<std::string>& names) {
  std::string s;
  for (size_t i = 0; i < names.size() && i < 4; ++i) s += (i ? ", " : "") + ::probe::detail::printable(names[i]);
  if (names.size() > 4) s += ", ... (" + std::to_string(names.size()) + " in all)";
  return s;
}

inline void leave_out_earlier_ranks(const std::string& dir, std::vector<dump_run>* runs) {
  const dump_run* latest = nullptr;
  for (const dump_run& r : *runs)
    if (r.rank >= 0 && r.world >= 2 &&
        (!latest || r.start_time > latest->start_time || (r.start_time == latest->start_time && r.rank < latest->rank)))
      latest = &r;
  if (!latest) return;
  const int world = latest->world;
  const std::string who = latest->name;
  auto earlier = [world](const dump_run& r) { return r.rank >= 0 && r.world >= 2 && (r.world != world || r.rank >= world); };
  std::vector<std::string> left;
  std::vector<int> worlds;
  for (const dump_run& r : *runs)
    if (earlier(r)) {
      left.push_back(r.name);
      if (std::find(worlds.begin(), worlds.end(), r.world) == worlds.end()) worlds.push_back(r.world);
    }
  if (left.empty()) return;
  std::vector<dump_run> kept;
  for (dump_run& r : *runs)
    if (!earlier(r)) kept.push_back(std::move(r));
  std::string sizes;
  for (size_t i = 0; i < worlds.size(); ++i) sizes += (i ? " or " : "") + std::to_string(worlds[i]);
  *runs = std::move(kept);
  runs->front().notes.push_back(dir + ": " + folder_names(left) + " left out: written by an earlier job of " + sizes +
                                " ranks (the latest run, " + ::probe::detail::printable(who) + ", is of a job of " +
                                std::to_string(world) + " ranks)");
}

// When its manifest.jsonl was last written (0 when it cannot be told).
inline double manifest_written(const std::string& dir) {
  struct stat st;
  if (::lstat(join(dir, "manifest.jsonl").c_str(), &st) != 0) return 0;
  return static_cast<double>(st.st_mtim.tv_sec) + 1e-9 * static_cast<double>(st.st_mtim.tv_nsec);
}

// A run at the top of a folder and rank folders beside it are two jobs' (one of one process,
// one of several ranks, each writing where its world size says): the one whose manifest was
// written last is read, the other left out with a note.
inline bool read_dump(const std::string& dir, std::vector<dump_run>* runs, std::string* error) {
  runs->clear();
  if (!is_dir(dir)) {
    *error = dir + ": not a folder";
    return false;
  }
  std::string top_note;
  if (manifest_in(dir)) {
    std::vector<std::string> rank_dirs;
    double ranks_written = 0;
    for (const std::string& name : list_dir(dir))
      if (name.compare(0, 5, "rank_") == 0 && manifest_in(join(dir, name))) {
        rank_dirs.push_back(name);
        ranks_written = std::max(ranks_written, manifest_written(join(dir, name)));
      }
    if (rank_dirs.empty() || manifest_written(dir) >= ranks_written) {
      runs->emplace_back();
      if (!read_manifest(dir, &runs->back(), error)) return false;
      if (!rank_dirs.empty())
        runs->back().notes.push_back(dir + ": " + folder_names(rank_dirs) + " left out: an earlier job's rank " +
                                     "folders (the run at the top of the folder was written after them)");
      return true;
    }
    top_note = dir + ": the run at the top of the folder left out: an earlier job's (the rank folders were written " +
               "after it)";
  }
  for (const std::string& name : list_dir(dir)) {
    const std::string sub = join(dir, name);
    if (!manifest_in(sub)) continue;
    runs->emplace_back();
    runs->back().name = name;
    if (!read_manifest(sub, &runs->back(), error)) return false;
  }
  if (runs->empty()) {
    *error = dir + ": no manifest.jsonl in it or in its subfolders";
    return false;
  }
  if (!top_note.empty()) runs->front().notes.push_back(top_note);
  leave_out_earlier_ranks(dir, runs);
  return true;
}

// The ops (by sequence number) that enclose any of `nested`, at any depth, following the
// records' `parent`: the one-dump checks let an enclosing op yield to a nested op that shows
// the same thing, since its output is often the very tensor the nested op wrote (compare's
// first divergence does the same). An op that recorded no tensor ends the chain there.
inline std::unordered_set<uint64_t> enclosing_ops(const dump_run& run, const std::vector<uint64_t>& nested) {
  std::unordered_map<uint64_t, uint64_t> parent_of;
  for (const dump_tensor& t : run.tensors) parent_of.emplace(t.seq, t.parent);
  std::unordered_set<uint64_t> out;
  for (uint64_t seq : nested) {
    auto it = parent_of.find(seq);
    // an op already marked has its own enclosing ops marked: this also ends a cycle
    for (uint64_t p = it == parent_of.end() ? 0 : it->second; p && out.insert(p).second;) {
      it = parent_of.find(p);
      p = it == parent_of.end() ? 0 : it->second;
    }
  }
  return out;
}

}  // namespace analysis
PROBE_END_NAMESPACE
