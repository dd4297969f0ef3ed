// breakpoint_frames: definitions (see breakpoint_frames.hpp).
#pragma once
#include "breakpoint_frames.hpp"

PROBE_BEGIN_NAMESPACE
namespace detail {

PROBE_API void add_var(frame& f, const std::string& name, const tensor_view& v) {
  frame_var fv;
  fv.name = name.empty() ? std::string("_") : name;
  // Names stay unique within a frame: a second "x" becomes "x_2", and so on.
  for (int k = 2; f.find(fv.name); ++k) fv.name = (name.empty() ? std::string("_") : name) + "_" + std::to_string(k);
  fv.view = v;
  std::string why;
  if (v.batch && read_tensor(v, &fv.gathered, &why)) fv.view = fv.gathered.view();
  f.vars.push_back(static_cast<frame_var&&>(fv));
}

PROBE_API std::string not_kept_text(const recorded_tensor& t, const std::string& op) {
  std::string s = std::string(t.which == io::in ? "input" : "output") + " of op " + op + " ";
  if (!t.not_kept.empty()) return s + t.not_kept;
  // The program's memory may have been freed or rewritten since the call: it is not read.
  return s + "not kept: when the op recorded it, no stop could show it (ops copy their tensors for "
             "breakpoint frames under --probe_breakpoint=prompt or dump, or on a terminal)";
}

PROBE_API void add_op_frame(stop_info& s, const op_record* r) {
  frame f;
  f.kind = frame_kind::op;
  f.name = printable(r->name);  // shown at the prompt: no control characters
  f.type = printable(r->type);
  f.seq = r->seq;
  f.step = r->step;
  for (const recorded_tensor& t : r->tensors) {
    std::string name = t.slot;
    if (t.which == io::out) {
      bool clash = false;
      for (const recorded_tensor& u : r->tensors)
        if (u.which == io::in && u.slot == t.slot) clash = true;
      if (clash) name += "_out";
    }
    if (!t.kept.empty()) {
      add_var(f, name, tensor_view());
      frame_var& v = f.vars.back();
      v.gathered = t.kept;
      v.view = v.gathered.view();
      v.copied = true;
    } else {
      add_var(f, name, t.view);
      // A batch's samples were gathered at the call, and a view with no data reads nothing.
      // Otherwise the view keeps shape and dtype for `info` and `.shape`; the prompt and the
      // dump check `unavailable` before any read.
      if (t.gathered.empty() && t.view.valid() && t.view.data && t.view.numel() > 0)
        f.vars.back().unavailable = not_kept_text(t, f.name);
    }
    f.vars.back().given = t.view;
  }
  s.frames.push_back(static_cast<frame&&>(f));
}

PROBE_API void add_op_frames(stop_info& s, const op_record* op) {
  for (const op_record* r = op; r; r = r->parent) add_op_frame(s, r);
}

PROBE_API void add_enclosing_frames(stop_info& s, const op_record* op, const scope_link* scope) {
  // A scope is inside op O when it began while O was the innermost op: it comes before O.
  // Scopes begun outside every op (or in an op no longer on the chain) come after the ops.
  const op_record* r = op;
  while (r || scope) {
    if (scope && (!r || scope->op == r)) {
      frame f;
      f.kind = frame_kind::scope;
      f.name = printable(scope->site->name ? scope->site->name : "");
      f.file = scope->site->file ? scope->site->file : "";
      f.line = scope->site->line;
      f.type = printable(scope->site->function ? scope->site->function : "");
      s.frames.push_back(static_cast<frame&&>(f));
      scope = scope->parent;
    } else {
      add_op_frame(s, r);
      r = r->parent;
    }
  }
}

PROBE_API void set_stop_thread(stop_info& s) noexcept {
  s.thread = thread_index();
  s.tid = os_thread_id();
  s.step = current_step();
}

PROBE_API std::string stop_where(const stop_info& s) {
  std::string t = "[thread " + std::to_string(s.thread) + ", tid " + std::to_string(s.tid) + ", step " +
                  std::to_string(s.step);
  if (s.hit) t += ", hit " + std::to_string(s.hit);
  return t + "]";
}

PROBE_API stop_info breakpoint_stop(const char* file, int line, const char* function, const var_ref* vars, int n) {
  stop_info s;
  set_stop_thread(s);
  frame f;
  f.kind = frame_kind::breakpoint;
  f.name = function ? function : "";
  f.file = file ? file : "";
  f.line = line;
  for (int i = 0; i < n; ++i) add_var(f, vars[i].name ? vars[i].name : "", vars[i].view);
  s.frames.push_back(static_cast<frame&&>(f));
  add_enclosing_frames(s, current_op(), current_scope());
  return s;
}

PROBE_API bool host_view_of(const tensor_view& v, tensor* storage, tensor_view* out, std::string* err) {
  if (v.where.is_host() && !v.batch) {
    *out = v;
    return true;
  }
  std::string why;
  if (!read_tensor(v, storage, &why)) {
    *err = v.batch ? why : "cannot copy it from the device: " + (why.empty() ? std::string("unknown error") : why);
    return false;
  }
  *out = storage->view();
  return true;
}

PROBE_API std::string shape_text(const tensor_view& v) {
  std::string s = dtype_name(v.type);
  s += '[';
  for (int d = 0; d < v.ndim; ++d) {
    if (d) s += ", ";
    s += std::to_string(v.shape[d]);
  }
  s += ']';
  return s;
}

PROBE_API std::string device_text(const tensor_view& v) {
  if (v.where.is_host()) return "host";
  return "cuda:" + std::to_string(v.where.index);
}

PROBE_API std::string frame_title(const frame& f, size_t index) {
  std::string s = "#" + std::to_string(index) + " ";
  switch (f.kind) {
    case frame_kind::breakpoint:
      s += "breakpoint at " + f.file + ":" + std::to_string(f.line);
      if (!f.name.empty()) s += " in " + f.name + "()";
      break;
    case frame_kind::nonfinite:
      if (f.file.empty()) {
        s += "non-finite " + f.name;  // from an op: "output 'y' of op conv1"
      } else {
        s += "non-finite check at " + f.file + ":" + std::to_string(f.line);
        if (!f.name.empty()) s += " in " + f.name + "()";
      }
      break;
    case frame_kind::value:
      s += "large value in " + f.name;  // "output 'y' of op conv1 ...", "argument 1 of probe::print(...)"
      break;
    case frame_kind::scope:
      s += "scope " + f.name + " at " + f.file + ":" + std::to_string(f.line);
      if (!f.type.empty()) s += " in " + f.type + "()";
      break;
    case frame_kind::op:
      s += "op " + f.name;
      if (!f.type.empty()) s += " (" + f.type + ")";
      s += " seq " + std::to_string(f.seq) + ", step " + std::to_string(f.step);
      break;
  }
  return s;
}

}  // namespace detail
PROBE_END_NAMESPACE
