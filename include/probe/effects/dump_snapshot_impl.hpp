// Snapshots: snapshots/op_000012.conv1/{snapshot.json, in.x.npy, out.y.npy}, one folder per
// op execution, enough to re-run that op with the data it really saw. snapshot.json is
// rewritten (atomically) as tensors arrive: inputs are on disk before the computation runs,
// so a crash inside the op keeps them, with "status": "running". Each tensor carries its
// health stats (the value ranges replay's fake data draws from) and the op its attributes.
// Internal header (member functions of dump_effect).
#pragma once
#include "dump_impl.hpp"

PROBE_BEGIN_NAMESPACE
namespace detail {

inline void dump_effect::begin_snapshot(const op_record& r, op_dump& d) noexcept {
  try {
    // Relative to the open run directory, never through a link: a run directory removed
    // meanwhile is not made again, and a planted snapshots/ link leads nowhere.
    const std::string snapshots = join_path(d.dir, "snapshots");
    if (!d.dir_fd || d.dir_fd->fd < 0) return;
    int top = -1;
    if (int e = open_subdir(d.dir_fd->fd, "snapshots", &top)) return fail(d, e, snapshots);
    d.snapshot_dir = join_path(snapshots, d.stem);
    const int e = open_subdir(top, d.stem.c_str(), &d.snapshot_fd);
    ::close(top);
    if (e) {
      d.snapshot_dir.clear();
      return fail(d, e, join_path(snapshots, d.stem));
    }
    write_snapshot_json(r, d, "running");
  } catch (...) {
  }
}

inline void dump_effect::snapshot_tensor(const op_record& r, op_dump& d, const tensor_record& rec,
                                             const std::string& file, const std::string& pieces) noexcept {
  try {
    std::string item;
    json::writer w(item);
    w.begin_object().member("slot", rec.slot).member("key", rec.key);
    if (!file.empty()) w.member("file", file);
    w.member("dtype", dtype_name(rec.elem_type));
    w.key("shape").begin_array();
    for (int i = 0; i < rec.ndim; ++i) w.value(static_cast<long long>(rec.shape[i]));
    w.end_array();
    // Value ranges: what replay's fake data draws from.
    if (rec.have_stats) {
      std::string h;
      append_health(h, rec.stats);
      w.key("stats").raw(h);
    }
    if (rec.is_input) {
      w.key("producer");
      if (rec.producer.empty()) w.null(); else w.value(rec.producer);
    }
    if (rec.inout) w.member("inout", true);
    if (rec.implicit) w.member("implicit", true);
    // An implicit input not read (found after the kernel): its prior state is the pieces of
    // its producers' snapshot files, or unknown.
    if (!rec.prior.empty()) w.member("prior", pieces.empty() ? "unknown" : rec.prior.c_str());
    if (!pieces.empty()) w.key("pieces").raw(pieces);
    if (rec.have_hash) {
      char h[16];
      hash_hex(rec.hash, h);
      w.member("hash", std::string(h, 16));
    }
    w.end_object();
    (rec.is_input ? d.snapshot_inputs : d.snapshot_outputs).push_back(item);
    write_snapshot_json(r, d, "running");
  } catch (...) {
  }
}

inline void dump_effect::end_snapshot(const op_record& r, op_dump& d, bool unwinding) noexcept {
  write_snapshot_json(r, d, unwinding ? "exception" : "complete");
}

inline void dump_effect::write_snapshot_json(const op_record& r, op_dump& d, const char* status) noexcept {
  if (d.snapshot_fd < 0) return;
  try {
    std::string text;
    json::writer w(text, json::writer::nonfinite::tokens);  // an attribute keeps a NaN or an infinity
    w.begin_object().member("format", "probe-snapshot-1").member("status", status);
    w.member("op", r.name).member("type", r.type);
    w.member("seq", static_cast<unsigned long long>(r.seq)).member("step", static_cast<long long>(r.step));
    w.member("occurrence", static_cast<unsigned long long>(r.occurrence));
    if (r.module) w.member("module", static_cast<unsigned long long>(r.module));
    // The attributes given so far: all of them once the inputs are in, if given first.
    w.key("attrs");
    write_attrs_json(w, r.attrs);
    w.key("inputs").begin_array();
    for (const auto& i : d.snapshot_inputs) w.raw(i);
    w.end_array().key("outputs").begin_array();
    for (const auto& o : d.snapshot_outputs) w.raw(o);
    w.end_array().end_object();
    text += '\n';
    if (int e = write_file_atomic_at(d.snapshot_fd, "snapshot.json", text.data(), text.size()))
      fail(d, e, join_path(d.snapshot_dir, "snapshot.json"));
  } catch (...) {
  }
}

}  // namespace detail
PROBE_END_NAMESPACE
