// The dump effect: an op_listener that writes every selected op's tensors as .npy files,
// text io-dumps and snapshots, one manifest line per tensor, and the data-flow graph at
// exit. Never throws, never stops the host: on the first I/O error it says so once and
// turns itself off. Small tensor and text files are handed to background writers
// (dump_writer.hpp, dump_async.hpp); everything they hold is written before a run's end
// record.
#pragma once
#include <errno.h>
#include <string.h>
#include <unistd.h>

#include <exception>
#include <memory>
#include <new>
#include <string>
#include <unordered_map>
#include <vector>

#include "../core/context.hpp"
#include "../core/flags.hpp"
#include "../core/options.hpp"
#include "../util/fs.hpp"
#include "../util/log.hpp"
#include "../util/regex.hpp"
#include "../util/sync.hpp"
#include "../formats/dot.hpp"
#include "../formats/graph_html.hpp"
#include "../formats/npy.hpp"
#include "dump.hpp"
#include "dump_dedup.hpp"
#include "dump_config.hpp"
#include "dump_filter.hpp"
#include "dump_names.hpp"
#include "dump_records.hpp"
#include "dump_tensor.hpp"
#include "dump_writer.hpp"

PROBE_BEGIN_NAMESPACE
namespace detail {

class dump_effect final : public op_listener {
 public:
  static constexpr size_t k_graph_cap = 2000;  // op executions drawn; DOT/HTML stay readable

  // Called by the wiring whenever options change.
  // Ops running on other threads meanwhile keep the configuration and run directory they
  // began with (see op_dump); configurations are immutable once published.
  void configure(const options& o) noexcept {
    drain_writers();  // the old run's queued files and lines, before its end record
    lock_guard<mutex> g(m_);
    // A new configuration ends the current run (its graphs and end record are written under
    // the old settings); the next selected op opens a new one.
    close_run_locked(false);
    dump_config* c = nullptr;
    bool can_retire = false;
    try {
      std::vector<std::string> flags = flag_tokens();
      // The same options set again reuse their configuration: a program that switches
      // between a few sets of flags keeps a few configurations, however often it switches.
      for (size_t i = 0; i < retired_.size(); ++i)
        if (same_options(retired_[i]->src, o) && retired_[i]->flags == flags) {
          c = retired_[i];
          retired_.erase(retired_.begin() + static_cast<std::ptrdiff_t>(i));
          break;
        }
      if (retired_.size() == retired_.capacity()) retired_.reserve(retired_.size() * 2 + 4);  // retiring cannot fail
      can_retire = true;
      if (!c) c = make_dump_config(o, std::move(flags));
    } catch (...) {
      c = nullptr;
    }
    // The old configuration may still be read by ops in flight; it is kept (until exit) for
    // them and for the next time the same options come back.
    if (cfg_ != &off_ && cfg_ != c && can_retire) retired_.push_back(cfg_);  // else: out of memory, never freed
    __atomic_store_n(&cfg_, c ? c : &off_, __ATOMIC_RELEASE);
    forked_ = false;  // the configuration is this process's own now
    stopped_ = false;
    __atomic_store_n(&fail_ticket_, ~uint64_t(0), __ATOMIC_RELEASE);
    __atomic_store_n(&failed_, false, __ATOMIC_RELEASE);
    __atomic_store_n(&active_, cfg_->on, __ATOMIC_RELEASE);
  }

  ~dump_effect() {
    for (dump_config* c : retired_) delete c;
    if (cfg_ != &off_) delete cfg_;
  }

  bool active() const noexcept { return __atomic_load_n(&active_, __ATOMIC_ACQUIRE); }

  bool wants_tensors_of(const op_record& r) const noexcept override { return active() && dump_selects(*config(), r); }

  void on_begin(op_record& r, uint64_t& state) noexcept override {
    if (!active()) return;
    const dump_config* c = config();
    if (!dump_selects(*c, r)) return;
    op_dump* d = nullptr;
    {
      lock_guard<mutex> g(m_);
      // Reconfigured or finished (exit) meanwhile: this op belongs to no run, and must not
      // open a new one (that would truncate the finished manifest).
      if (c != cfg_ || !active()) return;
      if (!usable_locked()) return;
      if (c->max_ops > 0 && ops_ >= static_cast<uint64_t>(c->max_ops)) {
        try {
          stop_locked("--probe_dump_max_ops=" + std::to_string(c->max_ops) + " reached", r.seq);
        } catch (...) {  // out of memory for the message: stopped all the same
          __atomic_store_n(&stopped_, true, __ATOMIC_RELEASE);
          __atomic_store_n(&active_, false, __ATOMIC_RELEASE);
        }
        return;
      }
      ++ops_;
      try {
        d = new op_dump();
        d->cfg = c;
        d->dir = dir_.path;
        d->dir_fd = open_dir::ref(dir_fd_);
        d->run = run_;
        d->stem = op_file_stem(r.seq, r.name);
        if (c->dot || c->html) {
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
    if (c->snapshots) begin_snapshot(r, *d);
    state = reinterpret_cast<uintptr_t>(d);
  }

  void on_tensor(op_record& r, const recorded_tensor& t, uint64_t& state) noexcept override {
    op_dump* d = reinterpret_cast<op_dump*>(state);
    if (!d || !active() || !current(*d)) return;
    const dump_config& c = *d->cfg;
    const char* stage = t.which == io::in ? "before" : "after";
    if (!c.stage_re.search(stage) || !c.slot_re.search(t.slot) || (c.slot_exclude && c.slot_exclude->search(t.slot))) return;
    try {
      tensor_record rec = make_record(r, t);
      const bool in = t.which == io::in;
      if (t.implicit) note_implicit(r, *d, t);
      if (t.unread) return write_unread(r, *d, t, rec);
      if (in && c.npy && !c.snapshots && rec.have_hash && same_as_earlier(r, t, *d, rec)) return;
      if ((c.npy || c.snapshots) && !reserve_bytes(*d, t.view.nbytes(), r.seq)) return;
      // Small tensors to the background writers. Not with snapshots: their inputs must be on
      // disk before the computation runs, and a tensor's file is linked into its snapshot.
      if (c.npy && !c.snapshots && c.threads > 0 && d->dir_fd && d->dir_fd->fd >= 0 && t.view.valid() &&
          t.view.nbytes() <= k_async_max_bytes) {
        if (dump_writers* w = dump_writers::get(c.threads))
          if (queue_tensor(r, t, *d, rec, *w)) return;
      }
      const std::string file_name = c.npy ? tensor_file_name(r.seq, r.name, in, t.slot, ".npy") : std::string();
      const std::string snap_name = c.snapshots && d->snapshot_fd >= 0
                                        ? (in ? "in." : "out.") + sanitize_name(t.slot, k_slot_name_cap) + ".npy"
                                        : std::string();
      // Files are named relative to the open run (or snapshot) directory: no path walk per
      // file, and nothing a link planted in the folder could redirect.
      const int dirfd = d->dir_fd ? d->dir_fd->fd : -1;
      if ((!file_name.empty() || !snap_name.empty()) && dirfd < 0) return;
      // One read of the tensor writes one file; a snapshot's copy is a hard link to it.
      const bool in_run = !file_name.empty();
      const int primary_fd = in_run ? dirfd : d->snapshot_fd;
      const std::string& primary = in_run ? file_name : snap_name;
      dump_result res = dump_tensor(t.view, primary.empty() ? AT_FDCWD : primary_fd, primary, c.text ? k_text_values : 0,
                                    nullptr, 0, !rec.have_hash);
      if (res.io_error)
        return fail(*d, res.io_error, join_path(in_run ? d->dir : d->snapshot_dir, primary));
      rec.stats = res.stats;
      rec.have_stats = res.read_ok;
      rec.note = res.note;
      take_hash(rec, res);
      if (res.written && !file_name.empty()) rec.file = file_name;
      if (res.written && !snap_name.empty()) {
        if (in_run && ::linkat(dirfd, file_name.c_str(), d->snapshot_fd, snap_name.c_str(), 0) != 0) {
          const dump_result copy = dump_tensor(t.view, d->snapshot_fd, snap_name, 0);
          if (!copy.written)
            return fail(*d, copy.io_error ? copy.io_error : EIO, join_path(d->snapshot_dir, snap_name));
        }
        snapshot_tensor(r, *d, rec, snap_name);
        if (!in && t.view.is_contiguous()) remember_snapshot_output(*d, rec.key, snap_name);
      }
      if (c.npy || c.snapshots) {
        write_manifest_line(*d, render_tensor_record(rec));
      } else {
        queue_line(r, *d, render_tensor_record(rec));  // stats only: the line is all there is
      }
      if (!rec.file.empty()) remember_input(r, t, rec, -1);
      if (c.text) append_text(*d, rec, res);
      if (d->graph_node != k_no_node) add_graph_tensor(*d, rec);
    } catch (...) {
    }
  }

  void on_end(op_record& r, uint64_t& state) noexcept override {
    op_dump* d = reinterpret_cast<op_dump*>(state);
    if (!d) return;
    state = 0;
    try {
      if (active()) {
        if (!r.attrs.empty() && current(*d)) write_manifest_line(*d, render_attrs_record(r));
        if (d->cfg->text && current(*d)) write_text(r, *d);
        if (d->cfg->snapshots) end_snapshot(r, *d, std::uncaught_exceptions() > 0);
      }
    } catch (...) {
    }
    delete d;
  }

  // Writes the queued files and the graph files so far; dumping can go on afterwards.
  void flush() noexcept {
    drain_writers();
    lock_guard<mutex> g(m_);
    if (!opened_ || failed()) return;
    write_graphs_locked();
  }

  // fork(): the locks are held across it, so that the child never inherits one taken. The
  // child lets go of its parent's run (descriptors closed, nothing written into it) and
  // opens a run of its own, in a private folder, at its next op; ops it inherited in flight
  // write nothing more. Its writer threads are made anew on first use (dump_writer.hpp).
  void before_fork() noexcept {
    m_.lock();
    line_m_.lock();
  }
  void after_fork_parent() noexcept {
    line_m_.unlock();
    m_.unlock();
  }
  void after_fork_child() noexcept {
    line_m_.unlock();
    forked_ = true;
    run_pid_ = 0;  // not this process's run: closing it writes nothing
    close_run_locked(false);
    m_.unlock();
  }

  // A file of the run beside the op dumps, then its manifest line (ir_dump_impl.hpp).
  bool write_run_file(const std::string& name, const std::string& body, const std::string& line) noexcept;

  // At exit: flush, then close the run.
  void finish() noexcept {
    drain_writers();
    lock_guard<mutex> g(m_);
    close_run_locked(true);
  }

 private:
  static constexpr size_t k_no_node = static_cast<size_t>(-1);
  static constexpr size_t k_text_values = 8;  // first values shown per tensor in text dumps

  // One op execution being dumped. It keeps the configuration and run it began under, so
  // that a set_flags() on another thread neither changes nor frees them under it.
  // The run directory held open, shared with the ops writing into it and closed after the
  // last of them: its descriptor number is never reused under an op still in flight.
  struct open_dir {
    int fd = -1;
    int refs = 1;
    std::string path;  // for messages
    static open_dir* ref(open_dir* p) noexcept {
      if (p) __atomic_add_fetch(&p->refs, 1, __ATOMIC_RELAXED);
      return p;
    }
    static void unref(open_dir* p) noexcept {
      if (!p || __atomic_sub_fetch(&p->refs, 1, __ATOMIC_ACQ_REL) != 0) return;
      if (p->fd >= 0) ::close(p->fd);
      delete p;
    }
  };

  struct op_dump {
    op_dump() = default;
    op_dump(const op_dump&) = delete;
    op_dump& operator=(const op_dump&) = delete;
    ~op_dump() {
      open_dir::unref(dir_fd);
      if (snapshot_fd >= 0) ::close(snapshot_fd);
    }
    const dump_config* cfg = nullptr;
    std::string dir;   // the run's directory
    open_dir* dir_fd = nullptr;  // the same, open (null or fd -1: use paths)
    uint64_t run = 0;  // which run (run_): lines and failures of a closed run are dropped
    std::string stem;  // "op_000012.conv1"
    std::string text;  // text io-dump body, written at on_end
    std::string snapshot_dir;                     // path of snapshots/op_000012.conv1 (messages)
    int snapshot_fd = -1;                         // the same, open
    std::vector<std::string> snapshot_inputs, snapshot_outputs;  // JSON objects for snapshot.json
    size_t graph_node = k_no_node;
  };

  const dump_config* config() const noexcept { return __atomic_load_n(&cfg_, __ATOMIC_ACQUIRE); }
  // Whether the op's run is still open: an op that outlives its run writes nothing more.
  bool current(const op_dump& d) const noexcept { return __atomic_load_n(&run_, __ATOMIC_ACQUIRE) == d.run; }

  bool stopped() const noexcept { return __atomic_load_n(&stopped_, __ATOMIC_ACQUIRE); }

  // Opens the run directory and manifest on first use; false once failed.
  bool usable_locked() noexcept {
    if (failed()) return false;
    if (opened_) return true;
    opened_ = true;
    run_pid_ = cached_pid();
    {
      lock_guard<mutex> g(line_m_);
      __atomic_store_n(&run_, run_ + 1, __ATOMIC_RELEASE);
    }
    if (cfg_->to_stdout) return true;
    std::string where;
    if (int e = open_run_dir(cfg_->base, &dir_, &where, forked_)) {
      fail_locked(e, where);
      return false;
    }
    if (!dir_.note.empty()) log("%s", dir_.note.c_str());
    dir_fd_ = new (std::nothrow) open_dir();
    if (!dir_fd_) {
      ::close(dir_.fd);
      fail_locked(ENOMEM, dir_.path);
      return false;
    }
    dir_fd_->fd = dir_.fd;
    __atomic_store_n(&run_dir_fd_, dir_.fd, __ATOMIC_RELEASE);
    try {
      dir_fd_->path = dir_.path;
      const std::string manifest = join_path(dir_.path, "manifest.jsonl");
      int fd = -1;
      // A fresh file: an earlier run's manifest, or a link planted under its name, is
      // replaced, never truncated or written through.
      if (int e = create_fresh_at(dir_.fd, "manifest.jsonl", O_WRONLY | O_APPEND, &fd)) {
        fail_locked(e, manifest);
        return false;
      }
      lock_guard<mutex> g(line_m_);
      manifest_fd_ = fd;
      manifest_path_ = manifest;
    } catch (...) {
      fail_locked(ENOMEM, dir_.path);
      return false;
    }
    try {
      write_line_locked(render_run_record(dir_.path, cfg_->base, cfg_->flags));
    } catch (...) {
      fail_locked(ENOMEM, manifest_path_);
    }
    return !failed();
  }

  // Reserves n bytes of the --probe_dump_max_bytes budget; false once it is spent.
  bool reserve_bytes(const op_dump& d, uint64_t n, uint64_t seq) {
    lock_guard<mutex> g(m_);
    if (stopped_ || !current(d)) return false;
    if (cfg_->max_bytes && bytes_ + n > cfg_->max_bytes) {
      stop_locked("--probe_dump_max_bytes=" + std::to_string(cfg_->max_bytes) + " reached", seq);
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
  // with or without m_ held. Files queued before it are still written; later ones are not.
  void fail(int err, const std::string& path) noexcept { fail_at(err, path, __atomic_load_n(&tickets_, __ATOMIC_ACQUIRE)); }
  void fail_at(int err, const std::string& path, uint64_t ticket) noexcept {
    uint64_t cur = __atomic_load_n(&fail_ticket_, __ATOMIC_ACQUIRE);
    while (ticket < cur && !__atomic_compare_exchange_n(&fail_ticket_, &cur, ticket, false, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
    }
    if (__atomic_exchange_n(&failed_, true, __ATOMIC_ACQ_REL)) return;
    __atomic_store_n(&active_, false, __ATOMIC_RELEASE);
    // Whatever the error says (ENOENT, EPERM, ...), a folder removed under the run is the cause.
    if (dir_removed(__atomic_load_n(&run_dir_fd_, __ATOMIC_ACQUIRE)))
      log("dumping turned off: the dump folder was removed while the program ran (%s); the program continues "
          "without dumps", path.c_str());
    else if (err == ELOOP && path.find("is a symbolic link") != std::string::npos)  // said already (open_made_dir)
      log("dumping turned off: %s; the program continues without dumps", path.c_str());
    else if (err == ELOOP)  // every open in the dump folder refuses links: one was planted there
      log("dumping turned off: %s is a symbolic link, which probe does not follow in a folder it makes; the program "
          "continues without dumps", path.c_str());
    else
      log("dumping turned off: %s (%s); the program continues without dumps", strerror(err), path.c_str());
  }
  void fail_locked(int err, const std::string& path) noexcept { fail(err, path); }
  // An op's I/O error turns off the run it belongs to, not one opened since.
  void fail(const op_dump& d, int err, const std::string& path) noexcept {
    lock_guard<mutex> g(m_);
    if (current(d)) fail(err, path);
  }

  // Manifest lines are written under line_m_ (taken after m_ where both are held), which
  // also guards the manifest's descriptor and changes of run_: a background writer holding
  // only line_m_ writes its line into its own run's manifest, never after the end record.
  void write_manifest_line(const op_dump& d, const std::string& line) {
    lock_guard<mutex> g(line_m_);
    if (current(d) && !failed()) append_line(line);
  }
  void write_line_locked(const std::string& line) noexcept {
    if (failed()) return;
    lock_guard<mutex> g(line_m_);
    append_line(line);
  }
  // One write(2) per line on an O_APPEND descriptor: lines are never torn, and a killed
  // process leaves only whole lines behind. line_m_ held.
  void append_line(const std::string& line) noexcept {
    if (manifest_fd_ < 0) return;
    if (int e = append_whole(manifest_fd_, line.data(), line.size())) fail(e, manifest_path_);
  }

  void append_text(op_dump& d, const tensor_record& rec, const dump_result& res) {
    d.text += render_text_tensor(rec, res.stats, res.read_ok, res.head, res.note);
  }

  void write_text(const op_record& r, op_dump& d) {
    const std::string body = render_text_header(r) + d.text;
    const std::string name = d.stem + ".txt";
    if (d.cfg->to_stdout) {
      const std::string block = "==== probe begin " + name + " ====\n" + body + "==== probe end " + name + " ====\n";
      lock_guard<mutex> g(m_);
      // A closed pipe (its reader gone) fails with EPIPE here instead of killing the program.
      io_signal_guard quiet;
      fflush(stdout);
      if (int e = write_all(1, block.data(), block.size())) {
        // stdout closed or full: nothing else to tell, stop quietly after one message.
        fail_locked(e, "stdout");
      }
      return;
    }
    if (queue_text(r, d, name, body)) return;
    if (!d.dir_fd || d.dir_fd->fd < 0) return;
    if (int e = write_file_atomic_at(d.dir_fd->fd, name.c_str(), body.data(), body.size())) fail(d, e, join_path(d.dir, name));
  }

  void add_graph_tensor(op_dump& d, const tensor_record& rec) {
    lock_guard<mutex> g(m_);
    if (d.graph_node >= graph_.nodes.size()) return;
    graph_tensor gt{rec.slot, dtype_name(rec.elem_type), shape_text(rec), rec.producer,
                    rec.have_stats ? short_stats_text(rec.stats) : std::string(), {}};
    for (const producer_ref& p : rec.producers) gt.producers.push_back(p.key);
    auto& node = graph_.nodes[d.graph_node];
    (rec.is_input ? node.inputs : node.outputs).push_back(gt);
  }

  // Snapshots: snapshots/op_000012.conv1/{snapshot.json, in.x.npy, out.y.npy}. Inputs are
  // written as they are given (before the computation), so a crash keeps them.
  void begin_snapshot(const op_record& r, op_dump& d) noexcept;
  void snapshot_tensor(const op_record& r, op_dump& d, const tensor_record& rec, const std::string& file,
                       const std::string& pieces = std::string()) noexcept;
  void end_snapshot(const op_record& r, op_dump& d, bool unwinding) noexcept;
  void write_snapshot_json(const op_record& r, op_dump& d, const char* status) noexcept;

  // Background writing (dump_async.hpp). queue_* return false when the caller must write
  // the file itself.
  bool queue_tensor(const op_record& r, const recorded_tensor& t, op_dump& d, tensor_record& rec, dump_writers& w);
  bool queue_text(const op_record& r, op_dump& d, const std::string& name, const std::string& body);
  void queue_line(const op_record& r, op_dump& d, std::string line);
  void flush_lines_locked() noexcept;  // line_m_ held
  static int64_t coarse_ms() noexcept;
  static constexpr size_t k_line_batch = 64 << 10;
  static constexpr int64_t k_line_delay_ms = 100;
  std::string line_buf_;         // stats-only lines not yet written (under line_m_)
  int64_t line_buf_since_ = 0;   // when its first line came
  int queue_job(dump_job* j, const op_record& r, op_dump& d, dump_writers& w, int lane) noexcept;
  static void write_job(dump_job& j) noexcept;
  void write_queued(dump_job& j) noexcept;
  void drain_writers() noexcept;

  void write_graphs_locked() noexcept;
  void close_run_locked(bool at_exit) noexcept;

  // Data flow (dump_dataflow_impl.hpp): notes about ops, inputs dumped once.
  void note_implicit(const op_record& r, op_dump& d, const recorded_tensor& t);
  void write_unread(const op_record& r, op_dump& d, const recorded_tensor& t, tensor_record& rec);
  void remember_snapshot_output(const op_dump& d, const std::string& key, const std::string& file);
  std::string snapshot_pieces(const tensor_record& rec, bool contiguous);
  bool same_as_earlier(const op_record& r, const recorded_tensor& t, op_dump& d, tensor_record& rec);
  void remember_input(const op_record& r, const recorded_tensor& t, const tensor_record& rec, int lane);
  static void take_hash(tensor_record& rec, const dump_result& res) noexcept {
    if (!rec.have_hash && res.have_hash) {
      rec.have_hash = true;
      rec.hash = res.hash;
    }
  }
  dump_memory memory_;  // under m_
  // Output key -> its snapshot file ("op_000003.bounce/out.f.npy"), for contiguous outputs:
  // the prior state of a later implicit input refers to them (under m_).
  std::unordered_map<std::string, std::string> snapshot_files_;

  mutex m_;
  mutex line_m_;  // manifest lines (see write_manifest_line); taken after m_
  dump_config off_;                   // the configuration before the first configure()
  dump_config* cfg_ = &off_;          // published with release, read with acquire
  std::vector<dump_config*> retired_;  // earlier configurations, freed at exit
  uint64_t run_ = 0;  // changes when a run opens or closes; written under m_ and line_m_, read atomically
  bool active_ = false;
  bool stopped_ = false;  // a budget was reached
  bool failed_ = false;   // an I/O error turned dumping off
  uint64_t tickets_ = 0;  // files queued for the writers, ever (their order)
  uint64_t fail_ticket_ = ~uint64_t(0);  // queued files after this one are dropped once failed_
  bool opened_ = false;
  pid_t run_pid_ = 0;  // the process that opened the run (a forked child leaves it alone)
  run_dir dir_;
  int manifest_fd_ = -1;             // written under m_ and line_m_
  std::string manifest_path_;
  open_dir* dir_fd_ = nullptr;  // the run directory, open
  int run_dir_fd_ = -1;         // its descriptor while the run is open (messages only)
  bool forked_ = false;         // this process is a forked child of the one that configured dumping
  uint64_t ops_ = 0, bytes_ = 0;
  dataflow_graph graph_;
};

inline void dump_effect::write_graphs_locked() noexcept {
  const dump_config& c = *cfg_;
  if (!(c.dot || c.html) || c.to_stdout || !dir_fd_ || dir_fd_->fd < 0) return;
  const int dirfd = dir_fd_->fd;
  try {
    graph_.link();
    if (c.dot) {
      const std::string text = render_dot(graph_);
      if (int e = write_file_atomic_at(dirfd, "graph.dot", text.data(), text.size()))
        return fail_locked(e, join_path(dir_.path, "graph.dot"));
    }
    if (c.html) {
      const std::string text = render_graph_html(graph_, "probe dump: " + dir_.path);
      if (int e = write_file_atomic_at(dirfd, "graph.html", text.data(), text.size()))
        return fail_locked(e, join_path(dir_.path, "graph.html"));
    }
  } catch (...) {
  }
}

// Ends the run: graphs, the manifest's end record, the directory lock. With at_exit false
// (options changed) the next op opens a new run.
inline void dump_effect::close_run_locked(bool at_exit) noexcept {
  // A forked child that closes its parent's run writes nothing into it.
  const bool ours = opened_ && run_pid_ == cached_pid();
  {
    // The end record is the run's last line: its id changes with it, under the same lock.
    std::string end;
    try {
      if (ours && !failed()) end = render_end_record(ops_, bytes_, stopped_);
    } catch (...) {  // out of memory at exit: the manifest ends without its end record
    }
    lock_guard<mutex> g(line_m_);
    flush_lines_locked();
    if (!end.empty()) append_line(end);
    if (opened_) __atomic_store_n(&run_, run_ + 1, __ATOMIC_RELEASE);  // its ops in flight stop writing
    if (manifest_fd_ >= 0) ::close(manifest_fd_);
    manifest_fd_ = -1;
  }
  if (ours && !failed()) write_graphs_locked();
  if (dir_.lock_fd >= 0) ::close(dir_.lock_fd);
  __atomic_store_n(&run_dir_fd_, -1, __ATOMIC_RELEASE);
  open_dir::unref(dir_fd_);
  dir_fd_ = nullptr;
  dir_ = run_dir{};
  opened_ = false;
  ops_ = bytes_ = 0;
  graph_ = dataflow_graph{};
  memory_.clear();
  snapshot_files_.clear();
  if (at_exit) __atomic_store_n(&active_, false, __ATOMIC_RELEASE);
}

inline dump_effect& dump_instance() noexcept {
  static dump_effect* d = [] {
    dump_effect* p = new dump_effect();  // never destroyed: ops may run during exit
    pthread_atfork([] { dump_instance().before_fork(); }, [] { dump_instance().after_fork_parent(); },
                   [] { dump_instance().after_fork_child(); });
    return p;
  }();
  return *d;
}

PROBE_API op_listener* dump_configure(const options& o) noexcept {
  dump_instance().configure(o);
  return &dump_instance();
}
PROBE_API void dump_flush() noexcept { dump_instance().flush(); }
PROBE_API void dump_finish() noexcept { dump_instance().finish(); }

}  // namespace detail
PROBE_END_NAMESPACE

