// The dump effect: an op_listener that writes every selected op's tensors as .npy files,
// text io-dumps and snapshots, one manifest line per tensor, and the data-flow graph at
// exit. Never throws, never stops the host: on the first I/O error it says so once and
// turns itself off. Implementation-only header.
#pragma once
#include <errno.h>
#include <string.h>
#include <unistd.h>

#include <exception>
#include <string>
#include <vector>

#include "../core/context_impl.hpp"
#include "../core/options.hpp"
#include "../detail/fs.hpp"
#include "../detail/log.hpp"
#include "../detail/regex.hpp"
#include "../detail/sync.hpp"
#include "../formats/dot.hpp"
#include "../formats/graph_html.hpp"
#include "../formats/npy.hpp"
#include "dump_names.hpp"
#include "dump_records.hpp"
#include "dump_tensor.hpp"

PROBE_BEGIN_NAMESPACE
namespace detail {

template <int = 0>
class basic_dump_effect final : public op_listener {
 public:
  static constexpr size_t k_graph_cap = 2000;  // op executions drawn; DOT/HTML stay readable

  // Called by the wiring whenever options change; `slot` is this listener's op_record scratch index.
  void configure(const options& o, int slot) noexcept {
    lock_guard<mutex> g(m_);
    // A new configuration ends the current run (its graphs and end record are written under
    // the old settings); the next selected op opens a new one.
    close_run_locked(false);
    try {
      slot_ = slot;
      cfg_ = dump_config{};
      cfg_.on = o.dump;
      cfg_.to_stdout = o.dump_to_stdout;
      cfg_.base = o.dump_to_stdout ? std::string() : std::string(o.dump_to);
      cfg_.text = o.dump_as_text;
      cfg_.npy = o.dump_as_npy && !o.dump_stats_only;
      cfg_.snapshots = o.dump_snapshots;
      cfg_.dot = o.dump_as_dot;
      cfg_.html = o.dump_as_html;
      cfg_.max_bytes = o.dump_max_bytes;
      cfg_.max_ops = o.dump_max_ops;
      cfg_.flags_text = o.dump_to;
      compile_filter(o.dump_op_re, "--probe_dump_op_re", cfg_.op_re);
      compile_filter(o.dump_type_re, "--probe_dump_type_re", cfg_.type_re);
      compile_filter(o.dump_stage_re, "--probe_dump_stage_re", cfg_.stage_re);
    } catch (...) {
      cfg_.on = false;
    }
    stopped_ = false;
    __atomic_store_n(&failed_, false, __ATOMIC_RELEASE);
    __atomic_store_n(&active_, cfg_.on, __ATOMIC_RELEASE);
  }

  bool active() const noexcept { return __atomic_load_n(&active_, __ATOMIC_ACQUIRE); }

  void on_begin(op_record& r) noexcept override {
    if (!active()) return;
    if (!cfg_.op_re.search(r.name) || !cfg_.type_re.search(r.type)) return;
    op_dump* d = nullptr;
    {
      lock_guard<mutex> g(m_);
      if (!usable_locked()) return;
      if (cfg_.max_ops > 0 && ops_ >= static_cast<uint64_t>(cfg_.max_ops)) {
        stop_locked("--probe_dump_max_ops=" + std::to_string(cfg_.max_ops) + " reached", r.seq);
        return;
      }
      ++ops_;
      try {
        d = new op_dump();
        d->stem = op_file_stem(r.seq, r.name);
        if (cfg_.dot || cfg_.html) {
          if (graph_.nodes.size() < k_graph_cap) {
            d->graph_node = graph_.nodes.size();
            graph_.nodes.push_back(graph_node{r.seq, r.step, r.name, r.type, r.occurrence, {}, {}});
          } else {
            ++graph_.dropped_nodes;
          }
        }
      } catch (...) {
        delete d;
        return;
      }
    }
    if (cfg_.snapshots) begin_snapshot(r, *d);
    r.scratch[slot_] = reinterpret_cast<uintptr_t>(d);
  }

  void on_tensor(op_record& r, const recorded_tensor& t) noexcept override {
    op_dump* d = reinterpret_cast<op_dump*>(r.scratch[slot_]);
    if (!d || !active()) return;
    const char* stage = t.which == io::in ? "before" : "after";
    if (!cfg_.stage_re.search(stage)) return;
    try {
      tensor_record rec = make_record(r, t);
      const bool in = t.which == io::in;
      if ((cfg_.npy || cfg_.snapshots) && !reserve_bytes(t.view.nbytes(), r.seq)) return;
      const std::string file_name = cfg_.npy ? tensor_file_name(r.seq, r.name, in, t.slot, ".npy") : std::string();
      const std::string snap_name =
          cfg_.snapshots ? (in ? "in." : "out.") + sanitize_name(t.slot, k_slot_name_cap) + ".npy" : std::string();
      // One read of the tensor writes one file; a snapshot's copy is a hard link to it.
      const std::string primary = !file_name.empty()   ? join_path(dir_.path, file_name)
                                  : !snap_name.empty() ? join_path(d->snapshot_dir, snap_name)
                                                       : std::string();
      dump_result res = dump_tensor(t.view, primary, cfg_.text ? k_text_values : 0);
      if (res.io_error) return fail(res.io_error, primary);
      rec.stats = res.stats;
      rec.have_stats = res.read_ok;
      rec.note = res.note;
      if (res.written && !file_name.empty()) rec.file = file_name;
      if (res.written && !snap_name.empty()) {
        const std::string snap_path = join_path(d->snapshot_dir, snap_name);
        if (!file_name.empty() && ::link(primary.c_str(), snap_path.c_str()) != 0 &&
            !npy::write(snap_path, t.view))
          return fail(errno ? errno : EIO, snap_path);
        snapshot_tensor(r, *d, rec, snap_name);
      }
      write_manifest_line(render_tensor_record(rec));
      if (cfg_.text) append_text(*d, rec, res);
      if (d->graph_node != k_no_node) add_graph_tensor(*d, rec);
    } catch (...) {
    }
  }

  void on_end(op_record& r) noexcept override {
    op_dump* d = reinterpret_cast<op_dump*>(r.scratch[slot_]);
    if (!d) return;
    r.scratch[slot_] = 0;
    try {
      if (active()) {
        if (cfg_.text) write_text(r, *d);
        if (cfg_.snapshots) end_snapshot(r, *d, std::uncaught_exceptions() > 0);
      }
    } catch (...) {
    }
    delete d;
  }

  // Writes the graph files so far; dumping can go on afterwards.
  void flush() noexcept {
    lock_guard<mutex> g(m_);
    if (!opened_ || failed()) return;
    write_graphs_locked();
  }

  // At exit: flush, then close the run.
  void finish() noexcept {
    lock_guard<mutex> g(m_);
    close_run_locked(true);
  }

 private:
  static constexpr size_t k_no_node = static_cast<size_t>(-1);
  static constexpr size_t k_text_values = 8;  // first values shown per tensor in text dumps

  struct dump_config {
    bool on = false, to_stdout = false, text = false, npy = false, snapshots = false, dot = false,
         html = false;
    std::string base, flags_text;
    uint64_t max_bytes = 0;
    int64_t max_ops = 0;
    regex op_re, type_re, stage_re;  // empty pattern matches everything
  };

  struct op_dump {
    std::string stem;  // "op_000012.conv1"
    std::string text;  // text io-dump body, written at on_end
    std::string snapshot_dir;                     // absolute path of snapshots/op_000012.conv1
    std::vector<std::string> snapshot_inputs, snapshot_outputs;  // JSON objects for snapshot.json
    size_t graph_node = k_no_node;
  };

  void compile_filter(const char* pattern, const char* flag, regex& out) {
    if (!pattern || !*pattern) return;
    std::string err;
    if (!out.compile(pattern, &err)) {
      log("%s: %s; the filter is ignored", flag, err.c_str());
      out = regex();
    }
  }

  bool stopped() const noexcept { return __atomic_load_n(&stopped_, __ATOMIC_ACQUIRE); }

  // Opens the run directory and manifest on first use; false once failed.
  bool usable_locked() noexcept {
    if (failed()) return false;
    if (opened_) return true;
    opened_ = true;
    if (cfg_.to_stdout) return true;
    std::string where;
    if (int e = open_run_dir(cfg_.base, &dir_, &where)) {
      fail_locked(e, where);
      return false;
    }
    if (!dir_.note.empty()) log("%s", dir_.note.c_str());
    const std::string manifest = join_path(dir_.path, "manifest.jsonl");
    manifest_fd_ = ::open(manifest.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC, 0666);
    if (manifest_fd_ < 0) {
      fail_locked(errno, manifest);
      return false;
    }
    write_line_locked(render_run_record(dir_.path, cfg_.base));
    return !failed();
  }

  // Reserves n bytes of the --probe_dump_max_bytes budget; false once it is spent.
  bool reserve_bytes(uint64_t n, uint64_t seq) {
    lock_guard<mutex> g(m_);
    if (stopped_) return false;
    if (cfg_.max_bytes && bytes_ + n > cfg_.max_bytes) {
      stop_locked("--probe_dump_max_bytes=" + std::to_string(cfg_.max_bytes) + " reached", seq);
      return false;
    }
    bytes_ += n;
    return true;
  }

  // Past a budget: one message, a manifest record saying so, and nothing more is dumped.
  void stop_locked(const std::string& why, uint64_t seq) {
    if (stopped_) return;
    __atomic_store_n(&stopped_, true, __ATOMIC_RELEASE);
    __atomic_store_n(&active_, false, __ATOMIC_RELEASE);
    log("dumping stopped at op %llu: %s", static_cast<unsigned long long>(seq), why.c_str());
    write_line_locked(render_budget_record(why, seq, ops_, bytes_));
  }

  bool failed() const noexcept { return __atomic_load_n(&failed_, __ATOMIC_ACQUIRE); }

  // The first I/O error turns dumping off, with one message. Lock-free, so it can be called
  // with or without m_ held.
  void fail(int err, const std::string& path) noexcept {
    if (__atomic_exchange_n(&failed_, true, __ATOMIC_ACQ_REL)) return;
    __atomic_store_n(&active_, false, __ATOMIC_RELEASE);
    log("dumping turned off: %s (%s); the program continues without dumps", strerror(err), path.c_str());
  }
  void fail_locked(int err, const std::string& path) noexcept { fail(err, path); }

  void write_manifest_line(const std::string& line) {
    lock_guard<mutex> g(m_);
    write_line_locked(line);
  }
  // One write(2) per line on an O_APPEND descriptor: lines are never torn, and a killed
  // process leaves only whole lines behind.
  void write_line_locked(const std::string& line) noexcept {
    if (manifest_fd_ < 0 || failed()) return;
    if (int e = write_all(manifest_fd_, line.data(), line.size()))
      fail_locked(e, join_path(dir_.path, "manifest.jsonl"));
  }

  void append_text(op_dump& d, const tensor_record& rec, const dump_result& res) {
    d.text += render_text_tensor(rec, res.stats, res.read_ok, res.head, res.note);
  }

  void write_text(const op_record& r, op_dump& d) {
    const std::string body = render_text_header(r) + d.text;
    const std::string name = d.stem + ".txt";
    if (cfg_.to_stdout) {
      const std::string block = "==== probe begin " + name + " ====\n" + body + "==== probe end " + name + " ====\n";
      lock_guard<mutex> g(m_);
      fflush(stdout);
      if (write_all(1, block.data(), block.size()) != 0) {
        // stdout closed or full: nothing else to tell, stop quietly after one message.
        fail_locked(errno ? errno : EIO, "stdout");
      }
      return;
    }
    const std::string path = join_path(dir_.path, name);
    if (int e = write_file_atomic(path, body.data(), body.size())) fail(e, path);
  }

  void add_graph_tensor(op_dump& d, const tensor_record& rec) {
    lock_guard<mutex> g(m_);
    if (d.graph_node >= graph_.nodes.size()) return;
    graph_tensor gt{rec.slot, dtype_name(rec.elem_type), shape_text(rec), rec.producer,
                    rec.have_stats ? short_stats_text(rec.stats) : std::string()};
    auto& node = graph_.nodes[d.graph_node];
    (rec.is_input ? node.inputs : node.outputs).push_back(gt);
  }

  // Snapshots: snapshots/op_000012.conv1/{snapshot.json, in.x.npy, out.y.npy}. Inputs are
  // written as they are given (before the computation), so a crash keeps them.
  void begin_snapshot(const op_record& r, op_dump& d) noexcept;
  void snapshot_tensor(const op_record& r, op_dump& d, const tensor_record& rec, const std::string& file) noexcept;
  void end_snapshot(const op_record& r, op_dump& d, bool unwinding) noexcept;
  void write_snapshot_json(const op_record& r, op_dump& d, const char* status) noexcept;

  void write_graphs_locked() noexcept;
  void close_run_locked(bool at_exit) noexcept;

  mutex m_;
  dump_config cfg_;
  int slot_ = 0;
  bool active_ = false;
  bool stopped_ = false;  // a budget was reached
  bool failed_ = false;   // an I/O error turned dumping off
  bool opened_ = false;
  run_dir dir_;
  int manifest_fd_ = -1;
  uint64_t ops_ = 0, bytes_ = 0;
  dataflow_graph graph_;
};
using dump_effect = basic_dump_effect<>;

template <int N>
inline void basic_dump_effect<N>::write_graphs_locked() noexcept {
  if (!(cfg_.dot || cfg_.html) || cfg_.to_stdout) return;
  try {
    graph_.link();
    if (cfg_.dot) {
      const std::string text = render_dot(graph_);
      const std::string path = join_path(dir_.path, "graph.dot");
      if (int e = write_file_atomic(path, text.data(), text.size())) return fail_locked(e, path);
    }
    if (cfg_.html) {
      const std::string text = render_graph_html(graph_, "probe dump: " + dir_.path);
      const std::string path = join_path(dir_.path, "graph.html");
      if (int e = write_file_atomic(path, text.data(), text.size())) return fail_locked(e, path);
    }
  } catch (...) {
  }
}

// Ends the run: graphs, the manifest's end record, the directory lock. With at_exit false
// (options changed) the next op opens a new run.
template <int N>
inline void basic_dump_effect<N>::close_run_locked(bool at_exit) noexcept {
  if (opened_ && !failed()) write_line_locked(render_end_record(ops_, bytes_, stopped_));
  if (opened_ && !failed()) write_graphs_locked();
  if (manifest_fd_ >= 0) ::close(manifest_fd_);
  manifest_fd_ = -1;
  if (dir_.lock_fd >= 0) ::close(dir_.lock_fd);
  dir_ = run_dir{};
  opened_ = false;
  ops_ = bytes_ = 0;
  graph_ = dataflow_graph{};
  if (at_exit) __atomic_store_n(&active_, false, __ATOMIC_RELEASE);
}

}  // namespace detail
PROBE_END_NAMESPACE

#include "dump_snapshot.hpp"
