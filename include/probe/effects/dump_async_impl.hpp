// Handing the dump's small files to background writers (dump_writer.hpp). The op's thread
// does what must happen while the op runs: filters and budgets (before this), one read of
// the tensor into the job (statistics over the copy), the file name and the manifest line.
// A writer makes the file atomically and appends the line after it, so the manifest never
// names a file that is not there. A writer's I/O error turns dumping off as on the op's
// thread: one message, files queued after the failing one are dropped (files queued before
// it are still written), the program goes on.
// Internal header (member functions of dump_effect).
#pragma once
#include "dump_impl.hpp"

PROBE_BEGIN_NAMESPACE
namespace detail {

inline bool dump_effect::queue_tensor(const op_record& r, const recorded_tensor& t, op_dump& d,
                                               tensor_record& rec, dump_writers& w) {
  const dump_config& c = *d.cfg;
  const std::string header = npy::header_for(t.view);
  const size_t bytes = t.view.nbytes();
  dump_job* j = dump_job::create(header.size() + bytes);
  if (!j) return false;
  dump_result res;
  try {
    memcpy(j->data(), header.data(), header.size());
    res = dump_tensor(t.view, AT_FDCWD, std::string(), c.text ? k_text_values : 0, j->data() + header.size(), bytes,
                      !rec.have_hash);
    rec.stats = res.stats;
    rec.have_stats = res.read_ok;
    rec.note = res.note;
    take_hash(rec, res);
    if (res.read_ok) {
      rec.file = tensor_file_name(r.seq, r.name, t.which == io::in, t.slot, ".npy");
      j->name = rec.file;
      j->line = render_tensor_record(rec);
    }
  } catch (...) {
    dump_job::destroy(j);
    throw;  // on_tensor's handler: nothing is recorded for this tensor
  }
  if (res.read_ok) {
    const int lane = queue_job(j, r, d, w, -1);
    if (lane < 0) return true;  // the run ended meanwhile
    remember_input(r, t, rec, lane);
  } else {
    // Nothing to write: the record says why, as on the synchronous path.
    dump_job::destroy(j);
    write_manifest_line(d, render_tensor_record(rec));
  }
  if (c.text) append_text(d, rec, res);
  if (d.graph_node != k_no_node) add_graph_tensor(d, rec);
  return true;
}

inline bool dump_effect::queue_text(const op_record& r, op_dump& d, const std::string& name,
                                             const std::string& body) {
  if (d.cfg->threads <= 0 || !d.dir_fd || d.dir_fd->fd < 0) return false;
  dump_writers* w = dump_writers::get(d.cfg->threads);
  if (!w) return false;
  dump_job* j = dump_job::create(body.size());
  if (!j) return false;
  try {
    memcpy(j->data(), body.data(), body.size());
    j->name = name;
  } catch (...) {
    dump_job::destroy(j);
    return false;
  }
  queue_job(j, r, d, *w, -1);
  return true;
}

// A manifest line with no file (stats-only dumps) joins a buffer written with one system
// call once it holds k_line_batch bytes or its first line is k_line_delay_ms old, and before
// anything waits for the writers (flush, new flags, exit): the op's thread pays for one write
// per few hundred lines. Without writer threads each line is written at once.
inline void dump_effect::queue_line(const op_record&, op_dump& d, std::string line) {
  if (d.cfg->threads <= 0) return write_manifest_line(d, line);
  const int64_t now = coarse_ms();
  lock_guard<mutex> g(line_m_);
  if (!current(d) || failed()) return;
  if (line_buf_.empty()) line_buf_since_ = now;
  line_buf_ += line;
  if (line_buf_.size() >= k_line_batch || now - line_buf_since_ >= k_line_delay_ms) flush_lines_locked();
}

inline void dump_effect::flush_lines_locked() noexcept {
  if (line_buf_.empty()) return;
  // A forked child holds a copy of its parent's lines: they are the parent's to write.
  if (run_pid_ == cached_pid() && !failed()) append_line(line_buf_);
  line_buf_.clear();
}

inline int64_t dump_effect::coarse_ms() noexcept {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);
  return static_cast<int64_t>(ts.tv_sec) * 1000 + ts.tv_nsec / 1000000;
}

// Queues a filled job (ownership passes) on the op's lane, or on `lane` when given; returns
// the lane, or -1 when the job was dropped instead. A job without a name writes only its line.
inline int dump_effect::queue_job(dump_job* j, const op_record& r, op_dump& d, dump_writers& w, int lane) noexcept {
  if (!current(d)) {
    dump_job::destroy(j);
    return -1;
  }
  j->write = &dump_effect::write_job;
  j->owner = this;
  j->dir = open_dir::ref(d.dir_fd);
  j->run = d.run;
  j->cost += j->name.size() + j->line.size();
  j->ticket = __atomic_add_fetch(&tickets_, 1, __ATOMIC_ACQ_REL);
  // One op's files on one lane: its manifest lines keep the order it recorded them in.
  const int used = d.cfg->threads < w.lanes() ? d.cfg->threads : w.lanes();
  const unsigned on = lane >= 0 && lane < used ? static_cast<unsigned>(lane) : static_cast<unsigned>(r.seq % static_cast<uint64_t>(used));
  w.push(j, on, d.cfg->queue_bytes);
  return static_cast<int>(on);
}

inline void dump_effect::write_job(dump_job& j) noexcept {
  static_cast<dump_effect*>(j.owner)->write_queued(j);
}

inline void dump_effect::write_queued(dump_job& j) noexcept {
  open_dir* dir = static_cast<open_dir*>(j.dir);
  // Dropped: its run has ended (a file written now could land in the next run's folder), or
  // an earlier file failed.
  auto dropped = [&] {
    return __atomic_load_n(&run_, __ATOMIC_ACQUIRE) != j.run ||
           (failed() && j.ticket > __atomic_load_n(&fail_ticket_, __ATOMIC_ACQUIRE));
  };
  if (!dropped()) {
    atomic_file f;
    int e = 0;
    if (!j.name.empty()) {
      e = f.open_at(dir->fd, j.name);
      if (!e) e = write_all(f.fd(), j.data(), j.size);
      if (!e) e = f.commit();
    }
    lock_guard<mutex> g(line_m_);
    if (__atomic_load_n(&run_, __ATOMIC_ACQUIRE) == j.run) {
      if (e) {
        try {
          fail_at(e, join_path(dir->path, j.name), j.ticket);
        } catch (...) {
          fail_at(e, j.name, j.ticket);
        }
      } else if (dropped()) {
        // An earlier file failed while this one was written: it goes too, so that every
        // tensor file has its manifest line.
        if (!j.line.empty() && !j.name.empty()) ::unlinkat(dir->fd, j.name.c_str(), 0);
      } else if (!j.line.empty()) {
        append_line(j.line);
      }
    }
  }
  open_dir::unref(dir);
}

inline void dump_effect::drain_writers() noexcept {
  {
    lock_guard<mutex> g(line_m_);
    flush_lines_locked();
  }
  if (dump_writers* w = dump_writers::existing()) w->drain();
}

}  // namespace detail
PROBE_END_NAMESPACE
