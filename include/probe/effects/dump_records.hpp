// What the dump writes about each tensor: manifest.jsonl records (one JSON object per line)
// and the text io-dump. Pure functions from records to text. Internal header.
#pragma once
#include <stdio.h>
#include <unistd.h>

#include <string>
#include <vector>

#include "../core/context.hpp"
#include "../core/format.hpp"
#include "../core/format_tensor.hpp"
#include "../core/stats.hpp"
#include "../core/tensor.hpp"
#include "../util/float_text.hpp"
#include "../util/hash.hpp"
#include "../util/int_text.hpp"
#include "../util/text.hpp"
#include "../formats/json_write.hpp"

PROBE_BEGIN_NAMESPACE
namespace detail {

// Everything the manifest says about one recorded tensor.
struct tensor_record {
  uint64_t seq = 0;
  int64_t step = 0;
  std::string op, type;
  uint64_t occurrence = 0;
  uint64_t parent = 0;  // 0: not nested
  uint32_t thread = 0;
  uint32_t lane = 0;             // op_record::lane
  uint64_t lane_occurrence = 0;  // op_record::lane_occurrence
  uint32_t module = 0;  // engine IR module (0: none)
  bool is_input = false;
  bool inout = false, implicit = false;
  // An implicit input found after the kernel (not read): "producers" when its producers'
  // records cover all of its bytes, else "unknown". Empty for every other tensor.
  std::string prior;
  std::string slot, key, producer;
  std::vector<producer_ref> producers;  // inputs: every latest writer of its bytes
  std::string stale_producer, stale_last_op;
  std::string within;  // recorded_tensor::within
  uint64_t within_at = 0;
  bool have_hash = false;
  uint64_t hash = 0;     // content hash of the row-major bytes
  std::string same_as;   // an earlier file holding the same bytes (then `file` is empty)
  dtype elem_type = dtype::invalid;
  int ndim = 0;
  int64_t shape[max_dims] = {};
  int64_t strides[max_dims] = {};
  device where{};
  uint64_t bytes = 0;
  std::string file;  // relative to the run directory; empty when no file was written
  bool have_stats = false;
  health stats;
  std::string note;  // why there are no stats (device without backend, ...)
  int64_t wall_ns = 0;
};

PROBE_API tensor_record make_record(const op_record& r, const recorded_tensor& t);

PROBE_API std::string shape_text(const tensor_record& rec);

PROBE_API std::string device_text(const device& d);

PROBE_API std::string short_stats_text(const health& h);

// The manifest line is written once per dumped tensor, so it is assembled by hand: constant
// keys are appended as they are, user strings go through the JSON escaper, numbers through
// the shortest round-trip formatter.
namespace manifest_text {
template <size_t N>
inline void lit(std::string& o, const char (&s)[N]) {
  o.append(s, N - 1);
}
inline void str(std::string& o, const std::string& s) { json::write_string(o, s); }
inline void opt_str(std::string& o, const std::string& s) {
  if (s.empty()) lit(o, "null"); else json::write_string(o, s);
}
inline void num(std::string& o, long long v) {
  char b[24];
  o.append(b, static_cast<size_t>(put_int(b, v) - b));
}
inline void unum(std::string& o, unsigned long long v) {
  char b[24];
  o.append(b, static_cast<size_t>(put_uint(b, v) - b));
}
inline void real(std::string& o, double v) {
  if (!fp_finite(v)) return lit(o, "null");  // JSON has no NaN or infinity
  char b[shortest_text_capacity];
  o.append(b, write_shortest(b, v));
}
inline void dims_array(std::string& o, const int64_t* d, int n) {
  o += '[';
  for (int i = 0; i < n; ++i) {
    if (i) o += ',';
    num(o, d[i]);
  }
  o += ']';
}
}  // namespace manifest_text

PROBE_API void append_health(std::string& o, const health& h);

// One manifest line, newline included.
PROBE_API std::string render_tensor_record(const tensor_record& rec);

// The run record: where, which probe, how it was built, and the flags the run was given.
PROBE_API std::string render_run_record(const std::string& dir, const std::string& asked,
                                        const std::vector<std::string>& flags = {});

// An op's attributes as a JSON object: numbers, strings, lists of integers.
PROBE_API void write_attrs_json(json::writer& w, const std::vector<op_attribute>& attrs);

// The manifest's "attrs" record of an op execution that has attributes, newline included.
PROBE_API std::string render_attrs_record(const op_record& r);

// "eps=1e-05 axis=1 mode=\"same\" dims=[1,2]" (the text dump, the CLI).
PROBE_API std::string attrs_text(const std::vector<op_attribute>& attrs);

PROBE_API std::string render_budget_record(const std::string& why, uint64_t seq, uint64_t ops, uint64_t bytes);

PROBE_API std::string render_end_record(uint64_t ops, uint64_t bytes, bool stopped);

// {"record":"note","seq":N,"op":"name","key_prefix":"name#k/","text":"..."}, newline included.
PROBE_API std::string render_note_record(const op_record& r, const std::string& text);

// Text io-dump, one file per op execution:
//   op 12 conv1 [Conv] step 0 #0 thread 0
//   in  x: float32[1,3,8,8] from stem#0/out/y
//       min -1.2 max 3.4 mean 0.12 std 0.9 nan 0 +inf 0 -inf 0 zero 3
//       [0.1 0.2 ... ]
PROBE_API std::string render_text_header(const op_record& r);

PROBE_API std::string render_text_tensor(const tensor_record& rec, const health& h, bool have_stats,
                                          const tensor& head, const std::string& note);

}  // namespace detail
PROBE_END_NAMESPACE
