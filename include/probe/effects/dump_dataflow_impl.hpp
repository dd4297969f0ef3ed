// The dump's data-flow records (member functions of dump_effect): the note naming an op that
// writes over another op's unread bytes without declaring them as input, the record of such
// an implicit input found after the kernel (never read: its producers' records are its prior
// state), and inputs dumped once ("same_as": an input whose bytes did not change since an
// earlier input file names that file instead of a copy). Internal header.
#pragma once
#include "dump_impl.hpp"

PROBE_BEGIN_NAMESPACE
namespace detail {

inline void dump_effect::note_implicit(const op_record& r, op_dump& d, const recorded_tensor& t) {
  bool first = false;
  {
    lock_guard<mutex> g(m_);
    first = current(d) && memory_.first_note(r.name);
  }
  if (!first) return;
  // Whether the op reads those bytes is not known: the words must hold for an update in place
  // and for an overwrite alike (a buffer filled by an init op and then computed into, a block
  // the allocator gave again).
  const std::string by = t.producer.empty() ? std::string("another op") : t.producer;
  write_manifest_line(d, render_note_record(r, r.name + " writes '" + t.slot + "' over bytes " + by +
                                                   " wrote earlier in this step that no op has read since, without "
                                                   "declaring them as input: recorded as read-modify-write in case it "
                                                   "updates them (its prior state is an implicit input). If it reads "
                                                   "them, declare them with inout(); if it only overwrites them (a "
                                                   "buffer reused, memory freed and allocated again), the implicit "
                                                   "input is what they held before and replay starts from it"));
}

// No file, statistics or hash: the bytes hold the op's result by now. The manifest says where
// the prior state is ("prior"); a snapshot names the pieces of the producers' snapshot files
// that make it, which replay assembles.
inline void dump_effect::write_unread(const op_record& r, op_dump& d, const recorded_tensor& t, tensor_record& rec) {
  const dump_config& c = *d.cfg;
  const std::string line = render_tensor_record(rec);
  if (c.npy || c.snapshots) write_manifest_line(d, line); else queue_line(r, d, line);
  if (c.text)
    d.text += render_text_tensor(rec, health(), false, tensor(),
                                 rec.prior == "producers" ? "recorded after the kernel; its prior state is what its producers recorded"
                                                          : "recorded after the kernel; its prior state is unknown (some bytes had no recorded producer)");
  if (d.graph_node != k_no_node) add_graph_tensor(d, rec);
  if (c.snapshots && d.snapshot_fd >= 0) snapshot_tensor(r, d, rec, std::string(), snapshot_pieces(rec, t.view.is_contiguous()));
}

inline void dump_effect::remember_snapshot_output(const op_dump& d, const std::string& key, const std::string& file) {
  lock_guard<mutex> g(m_);
  if (!current(d)) return;
  snapshot_files_[key] = d.stem + "/" + file;
}

// The JSON list of pieces {key, offset, bytes, at, file} making an implicit input's prior
// state, or "" when they cannot: a byte range without producer, a producer without a
// contiguous snapshot file or whose bytes here are rows, or an input whose bytes are not in
// row-major order.
inline std::string dump_effect::snapshot_pieces(const tensor_record& rec, bool contiguous) {
  if (rec.prior != "producers" || !contiguous) return std::string();
  std::string out;
  json::writer w(out);
  w.begin_array();
  lock_guard<mutex> g(m_);
  for (const producer_ref& p : rec.producers) {
    auto it = snapshot_files_.find(p.key);
    if (it == snapshot_files_.end() || p.rows) return std::string();
    w.begin_object().member("key", p.key).member("file", it->second);
    w.member("offset", static_cast<unsigned long long>(p.offset)).member("bytes", static_cast<unsigned long long>(p.bytes));
    w.member("at", static_cast<unsigned long long>(p.at)).end_object();
  }
  w.end_array();
  return out;
}

inline bool dump_effect::same_as_earlier(const op_record& r, const recorded_tensor& t, op_dump& d, tensor_record& rec) {
  dump_memory::written w;
  {
    lock_guard<mutex> g(m_);
    if (!current(d)) return false;
    const dump_memory::written* found = memory_.find(r.name, t.slot, t.view, rec.hash);
    if (!found) return false;
    w = *found;
  }
  rec.same_as = w.file;
  rec.stats = w.stats;
  rec.have_stats = true;
  std::string line = render_tensor_record(rec);
  // The file is still queued: the line goes after it, on its writer's lane, so that the
  // manifest never names a file before the line that lists it (nor one that failed).
  dump_writers* writers = w.lane >= 0 ? dump_writers::existing() : nullptr;
  dump_job* j = writers ? dump_job::create(0) : nullptr;
  if (j) {
    j->line = std::move(line);
    queue_job(j, r, d, *writers, w.lane);
  } else {
    write_manifest_line(d, line);
  }
  if (d.cfg->text) d.text += render_text_tensor(rec, rec.stats, true, tensor(), std::string());
  if (d.graph_node != k_no_node) add_graph_tensor(d, rec);
  return true;
}

// `lane`: the background writer lane making the file (-1: it is in place already).
inline void dump_effect::remember_input(const op_record& r, const recorded_tensor& t, const tensor_record& rec,
                                        int lane) {
  if (t.which != io::in || !rec.have_hash || !rec.have_stats || rec.file.empty()) return;
  dump_memory::written w;
  w.hash = rec.hash;
  w.file = rec.file;
  w.stats = rec.stats;
  w.lane = lane;
  const dump_memory::keys k = dump_memory::keys_of(r.name, t.slot, t.view);
  lock_guard<mutex> g(m_);
  memory_.remember(k, w);
}

}  // namespace detail
PROBE_END_NAMESPACE
