// The frames a breakpoint shows: its own variables first, then each enclosing probe scope
// with the tensors it recorded, innermost first. Internal header.
//
// Frames come from scope records that know their parent: op scopes (core/context_impl.hpp;
// a worker's ops may lead to an adopted op of another thread) and PROBE_SCOPE blocks (the
// thread's chain of scope_link, effects/timing.hpp), interleaved by the op each scope began in.
#pragma once
#include <stdio.h>
#include <string.h>

#include <string>

#include "../core/context.hpp"
#include "../core/tensor.hpp"
#include "../core/tensor_reader.hpp"
#include <vector>
#include "../util/text.hpp"
#include "../util/thread_id.hpp"
#include "breakpoint.hpp"
#include "timing.hpp"

PROBE_BEGIN_NAMESPACE
namespace detail {

enum class frame_kind : uint8_t { breakpoint, nonfinite, op, scope, value };

struct frame_var {
  std::string name;
  tensor_view view;  // what is shown: the caller's view during its call, else `gathered`
  // The frame's own copy, when `view` shows one: a batch_view's samples read when the frame
  // was built, or an op's tensor as the op copied it at its call.
  tensor gathered;
  // An op's tensor: the view the program gave (`info NAME` shows its strides and address).
  tensor_view given;
  bool copied = false;  // `gathered` is the op's copy from its call
  // Why the value cannot be shown ("" when it can): the op made no copy. `view` keeps the
  // shape and dtype, and its memory is never read.
  std::string unavailable;
};

struct frame {
  frame_kind kind = frame_kind::breakpoint;
  std::string name;      // op name; a breakpoint's function; what a non-finite check without
                         // a source location looked at ("output 'y' of op conv1")
  std::string type;      // op type; a scope's function
  std::string file;      // source location, when known
  int line = 0;
  uint64_t seq = 0;      // op sequence number
  int64_t step = 0;
  std::vector<frame_var> vars;

  const frame_var* find(const std::string& n) const noexcept {
    for (const frame_var& v : vars)
      if (v.name == n) return &v;
    return nullptr;
  }
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
  int64_t step = 0;      // probe::current_step() at the stop
  uint64_t hit = 0;      // how many times this breakpoint's location was reached (0: not counted)
  std::vector<frame> frames;  // [0] is the innermost (the breakpoint itself)
};

PROBE_API void add_var(frame& f, const std::string& name, const tensor_view& v);

// Why an op frame's tensor has no value to show: it was not copied at its call.
PROBE_API std::string not_kept_text(const recorded_tensor& t, const std::string& op);

// The enclosing op scopes of `op` (itself included), innermost first. An op frame's
// variables are its recorded tensors named by slot; a slot used both as an input and an
// output is "x" for the input and "x_out" for the output. They show the copies the op made
// when it recorded them (recorded_tensor::kept): the frames take their own copy of those, so
// that a stop_info outlives the ops it shows.
PROBE_API void add_op_frames(stop_info& s, const op_record* op);
PROBE_API void add_op_frame(stop_info& s, const op_record* r);

// The enclosing op scopes of `op` and the PROBE_SCOPE blocks open on this thread, interleaved
// as they nest, innermost first. A scope frame has its name, file:line and function.
PROBE_API void add_enclosing_frames(stop_info& s, const op_record* op, const scope_link* scope);

PROBE_API void set_stop_thread(stop_info& s) noexcept;

// "[thread 0, tid 123, step 4, hit 2]": who stopped, when, how often this location did.
PROBE_API std::string stop_where(const stop_info& s);

// A breakpoint at a source location with the caller's variables, inside the current ops.
PROBE_API stop_info breakpoint_stop(const char* file, int line, const char* function, const var_ref* vars, int n);

// A host view of v: v itself when on the host, else a copy into *storage. False (with *err)
// when the copy fails.
PROBE_API bool host_view_of(const tensor_view& v, tensor* storage, tensor_view* out, std::string* err);

// "float32[2, 3]", "int64[]".
PROBE_API std::string shape_text(const tensor_view& v);

PROBE_API std::string device_text(const tensor_view& v);

// One line per frame, outermost first, like pdb's `where`; `current` is marked with '>'.
PROBE_API std::string frame_title(const frame& f, size_t index);

}  // namespace detail
PROBE_END_NAMESPACE
