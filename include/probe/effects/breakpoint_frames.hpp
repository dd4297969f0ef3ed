// The frames a breakpoint shows: its own variables first, then each enclosing probe scope
// with the tensors it recorded, innermost first. Implementation-only header.
//
// Frames come from scope records that know their parent on the same thread; today those are
// op scopes (core/context_impl.hpp). Another kind of scope (a timing scope) becomes a frame
// by adding a frame_kind and a case to collect_frames() that walks its own chain.
#pragma once
#include <stdio.h>
#include <string.h>

#include <string>

#include "../core/context_impl.hpp"
#include "../core/tensor.hpp"
#include "../core/tensor_reader.hpp"
#include "../util/plain_vector.hpp"
#include "../util/printable.hpp"
#include "../util/thread_id.hpp"
#include "breakpoint.hpp"

PROBE_BEGIN_NAMESPACE
namespace detail {

enum class frame_kind : uint8_t { breakpoint, nonfinite, op };

struct frame_var {
  std::string name;
  tensor_view view;
};

struct frame {
  frame_kind kind = frame_kind::breakpoint;
  std::string name;      // op name; a breakpoint's function; what a non-finite check without
                         // a source location looked at ("output 'y' of op conv1")
  std::string type;      // op type
  std::string file;      // source location, when known
  int line = 0;
  uint64_t seq = 0;      // op sequence number
  int64_t step = 0;
  plain_vector<frame_var> vars;

  template <int = 0>
  const frame_var* find(const std::string& n) const noexcept {
    for (const frame_var& v : vars)
      if (v.name == n) return &v;
    return nullptr;
  }
  template <int = 0>
  frame_var* find(const std::string& n) noexcept {
    for (frame_var& v : vars)
      if (v.name == n) return &v;
    return nullptr;
  }
};

// Where a breakpoint stopped and everything it shows.
struct stop_info {
  std::string reason;    // one line: "breakpoint", "non-finite values in ..."
  uint32_t thread = 0;   // probe's small thread index
  long tid = 0;          // the OS thread id
  plain_vector<frame> frames;  // [0] is the innermost (the breakpoint itself)
};

PROBE_FUNC void add_var(frame& f, const std::string& name, const tensor_view& v) {
  frame_var fv;
  fv.name = name.empty() ? std::string("_") : name;
  // Names stay unique within a frame: a second "x" becomes "x_2", and so on.
  for (int k = 2; f.find(fv.name); ++k) fv.name = (name.empty() ? std::string("_") : name) + "_" + std::to_string(k);
  fv.view = v;
  f.vars.push_back(static_cast<frame_var&&>(fv));
}

// The enclosing op scopes of `op` (itself included), innermost first. An op frame's
// variables are its recorded tensors named by slot; a slot used both as an input and an
// output is "x" for the input and "x_out" for the output.
PROBE_FUNC void add_op_frames(stop_info& s, const op_record* op) {
  for (const op_record* r = op; r; r = r->parent) {
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
      add_var(f, name, t.view);
    }
    s.frames.push_back(static_cast<frame&&>(f));
  }
}

PROBE_FUNC void set_stop_thread(stop_info& s) noexcept {
  s.thread = thread_index();
  s.tid = os_thread_id();
}

// A breakpoint at a source location with the caller's variables, inside the current ops.
PROBE_FUNC stop_info breakpoint_stop(const char* file, int line, const char* function, const var_ref* vars, int n) {
  stop_info s;
  set_stop_thread(s);
  frame f;
  f.kind = frame_kind::breakpoint;
  f.name = function ? function : "";
  f.file = file ? file : "";
  f.line = line;
  for (int i = 0; i < n; ++i) add_var(f, vars[i].name ? vars[i].name : "", vars[i].view);
  s.frames.push_back(static_cast<frame&&>(f));
  add_op_frames(s, current_op());
  return s;
}

// A host view of v: v itself when on the host, else a copy into *storage. False (with *err)
// when the copy fails.
PROBE_FUNC bool host_view_of(const tensor_view& v, tensor* storage, tensor_view* out, std::string* err) {
  if (v.where.is_host()) {
    *out = v;
    return true;
  }
  std::string why;
  if (!read_tensor(v, storage, &why)) {
    *err = "cannot copy it from the device: " + (why.empty() ? std::string("unknown error") : why);
    return false;
  }
  *out = storage->view();
  return true;
}

// "float32[2, 3]", "int64[]".
PROBE_FUNC std::string shape_text(const tensor_view& v) {
  std::string s = dtype_name(v.type);
  s += '[';
  for (int d = 0; d < v.ndim; ++d) {
    if (d) s += ", ";
    s += std::to_string(v.shape[d]);
  }
  s += ']';
  return s;
}

PROBE_FUNC std::string device_text(const tensor_view& v) {
  if (v.where.is_host()) return "host";
  return "cuda:" + std::to_string(v.where.index);
}

// One line per frame, outermost first, like pdb's `where`; `current` is marked with '>'.
PROBE_FUNC std::string frame_title(const frame& f, size_t index) {
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
